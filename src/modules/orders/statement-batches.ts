/**
 * Batches of statements: work items submitted under a key are run together, up to `maxSize` per
 * batch, with at most `maxInFlight` batches running at once. The requisite claim (docs/decisions.md
 * "Orders claimed in batches") and the merchant's order reads ("Orders read in batches") use it. An
 * item waits only while every slot is busy (or for the end of the current turn of the event loop,
 * so that items arriving together go together): at low load each batch is one item, under load the
 * items that queued behind the running batches go in the next ones. Items of the same key keep
 * their order in a batch; the oldest waiting item's key goes first. An item that waits longer than
 * `maxWaitMs` for a batch is rejected, as a request waiting for a pool's connection would be: an
 * overloaded process sheds load instead of queueing without end.
 */
export interface Batches<I, O> {
  /** Resolves with the item's answer from `run`, or rejects with its error (or the batch's). */
  submit(key: string, item: I): Promise<O>;
}

interface Waiting<I, O> {
  item: I;
  order: number;
  /** When it was submitted (epoch milliseconds). */
  since: number;
  resolve: (value: O) => void;
  reject: (error: unknown) => void;
}

/**
 * @param options.run runs one batch (items of one key, in the order submitted) and answers each
 *   item in the same position: its value, or an Error that item alone is rejected with. A throw
 *   rejects every item of the batch.
 * @param options.maxSize most items per batch (at least 1).
 * @param options.maxInFlight most batches running at once (at least 1).
 * @param options.maxWaitMs most milliseconds an item waits for its batch to start; then it is
 *   rejected with `options.timeoutError()`.
 */
export function createBatches<I, O>(options: {
  run: (key: string, items: I[]) => Promise<Array<O | Error>>;
  maxSize: number;
  maxInFlight: number;
  maxWaitMs: number;
  timeoutError: () => Error;
}): Batches<I, O> {
  const maxSize = Math.max(1, Math.floor(options.maxSize));
  const maxInFlight = Math.max(1, Math.floor(options.maxInFlight));
  const queues = new Map<string, Array<Waiting<I, O>>>();
  let inFlight = 0;
  let submitted = 0;
  let scheduled = false;
  let sweepTimer: ReturnType<typeof setTimeout> | undefined;

  /** The key whose first waiting item is the oldest. */
  const oldestKey = (): string | undefined => {
    let best: string | undefined;
    let bestOrder = Number.POSITIVE_INFINITY;
    for (const [key, queue] of queues) {
      const head = queue[0];
      if (head && head.order < bestOrder) {
        best = key;
        bestOrder = head.order;
      }
    }
    return best;
  };

  const start = (key: string, batch: Array<Waiting<I, O>>) => {
    inFlight++;
    options
      .run(
        key,
        batch.map((w) => w.item),
      )
      .then(
        (answers) => {
          batch.forEach((w, i) => {
            const answer = answers[i];
            if (answer instanceof Error) w.reject(answer);
            else w.resolve(answer as O);
          });
        },
        (error: unknown) => {
          for (const w of batch) w.reject(error);
        },
      )
      .finally(() => {
        inFlight--;
        drain();
      });
  };

  const drain = () => {
    scheduled = false;
    while (inFlight < maxInFlight) {
      const key = oldestKey();
      if (key === undefined) return;
      const queue = queues.get(key) as Array<Waiting<I, O>>;
      const batch = queue.splice(0, maxSize);
      if (queue.length === 0) queues.delete(key);
      start(key, batch);
    }
  };

  /** Rejects the items that waited maxWaitMs, then waits for the next oldest one's deadline. */
  const sweep = () => {
    sweepTimer = undefined;
    const now = Date.now();
    for (const [key, queue] of queues) {
      while (queue[0] && now - queue[0].since >= options.maxWaitMs)
        queue.shift()?.reject(options.timeoutError());
      if (queue.length === 0) queues.delete(key);
    }
    armSweep();
  };

  /** One timer for all waiting items, set for the oldest one's deadline (heads are the oldest of their key). */
  const armSweep = () => {
    if (sweepTimer) return;
    let oldest = Number.POSITIVE_INFINITY;
    for (const queue of queues.values()) oldest = Math.min(oldest, queue[0]?.since ?? oldest);
    if (oldest === Number.POSITIVE_INFINITY) return;
    sweepTimer = setTimeout(sweep, Math.max(0, oldest + options.maxWaitMs - Date.now()));
    sweepTimer.unref();
  };

  return {
    submit(key, item) {
      return new Promise<O>((resolve, reject) => {
        let queue = queues.get(key);
        if (!queue) {
          queue = [];
          queues.set(key, queue);
        }
        queue.push({ item, order: submitted++, since: Date.now(), resolve, reject });
        if (!scheduled && inFlight < maxInFlight) {
          scheduled = true;
          setImmediate(drain);
        }
        armSweep();
      });
    },
  };
}
