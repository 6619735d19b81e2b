/** A background job that runs `task` every `intervalMs`, never two runs at once. */
export interface PeriodicJob {
  stop(): Promise<void>;
}

/**
 * Starts `task` now and then every `intervalMs` after each run ends. Errors are passed to `onError`
 * and the job keeps going (a database restart must not kill the sweeper). `stop` waits for a run in flight.
 */
export function startPeriodic(
  task: () => Promise<unknown>,
  intervalMs: number,
  onError: (err: unknown) => void,
): PeriodicJob {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const tick = () => {
    running = task()
      .then(() => undefined, onError)
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, intervalMs);
      });
  };
  tick();
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
