// A node:test reporter used alongside `spec` by scripts/run-tests.mjs: at the end of a pass it prints
// the slowest test files with their wall-clock seconds, so CI time can be attributed per file. A
// file's time is its child process's whole run (the runner's `test:complete` event for the file,
// import and hooks included); files run two at a time, so the times overlap.

/** How many files the table lists: TEST_SLOWEST=<n> (e.g. every file), else 25. */
const SHOWN = Number(process.env.TEST_SLOWEST) || 25;

/**
 * Async-generator reporter (node:test custom reporter API): consumes the runner's events and, when
 * the stream ends, yields one text block listing the SHOWN slowest files (seconds, wall clock) and
 * the sum over all files.
 * @param {AsyncIterable<{type: string, data: {name?: string, file?: string, details?: {duration_ms?: number}}}>} source
 */
export default async function* slowestFiles(source) {
  const seconds = new Map(); // file path (relative to the working directory) -> seconds
  const root = `${process.cwd()}/`;
  for await (const event of source) {
    const { name, file, details } = event.data ?? {};
    // The per-file event is the one whose name is the file itself (each file is one child process).
    if (event.type !== 'test:complete' || !file || name !== file) continue;
    const path = file.startsWith(root) ? file.slice(root.length) : file;
    seconds.set(path, (details?.duration_ms ?? 0) / 1000);
  }
  const rows = [...seconds].sort((a, b) => b[1] - a[1]);
  const total = rows.reduce((sum, [, s]) => sum + s, 0);
  let out = `\n== ${Math.min(SHOWN, rows.length)} slowest of ${rows.length} test files (seconds; files run side by side, sum ${total.toFixed(0)} s)\n`;
  for (const [file, s] of rows.slice(0, SHOWN)) out += `${s.toFixed(1).padStart(8)}  ${file}\n`;
  yield out;
}
