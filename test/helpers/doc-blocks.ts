/**
 * The code blocks of the project's documents, as the docs test runs them (test/docs/docs-run.test.ts).
 *
 * The rule, for whoever writes a block:
 * - Every fence has an info string. ```sh, ```bash and ```shell blocks run in bash; ```js and
 *   ```javascript run in Node as ES modules; ```ts runs through tsx. Every other info string (```json,
 *   ```ini, ```python, ```text ...) is shown, never run.
 * - `<!-- not-run: <reason> -->` on the line above a block of a runnable language skips it; the reason
 *   is required and says why (a production template, a phone's address, a long-running service the
 *   test starts itself ...).
 * - `<!-- run: background -->` above a block starts it and goes on (a receiver, a listener): it must
 *   still be running when the document ends, and must have printed something.
 * - In a shell block, `# -> <output>` after a command shows what it prints (continued by lines
 *   `#     ...`): every `"key":value` pair in it without `...`, `…` or `<placeholder>` must be in the
 *   command's output (JSON output is compared compactly); a shown output of plain text (no JSON, no
 *   placeholder) must be printed as it is, line breaks and runs of spaces counting as one space.
 * - Variables and the working directory carry on from block to block, as in one terminal.
 */

export type BlockLang = 'sh' | 'js' | 'ts';

export interface DocBlock {
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The info string as written. */
  info: string;
  /** What runs it; undefined: shown only. */
  lang: BlockLang | undefined;
  code: string;
  /** Set when the block is marked `<!-- not-run: reason -->`. */
  notRun?: string;
  background: boolean;
}

const RUNNABLE: Record<string, BlockLang> = {
  sh: 'sh',
  bash: 'sh',
  shell: 'sh',
  js: 'js',
  javascript: 'js',
  ts: 'ts',
  typescript: 'ts',
};

/**
 * The fenced blocks of a Markdown text in order, with their markers. Throws for a fence without an
 * info string and for a `not-run` marker without a reason, so the rule stays explicit.
 */
export function docBlocks(file: string, text: string): DocBlock[] {
  const lines = text.split('\n');
  const blocks: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,})(.*)$/.exec(lines[i] ?? '');
    if (!open) continue;
    const [, indent = '', fence = '', rawInfo = ''] = open;
    const info = rawInfo.trim();
    if (!info)
      throw new Error(`${file}:${i + 1}: a code block needs an info string (sh, js, ts, json, text ...)`);
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const l = lines[j] ?? '';
      if (l.trim() === fence) break;
      body.push(l.startsWith(indent) ? l.slice(indent.length) : l.trimStart());
    }
    const above = (lines[i - 1] ?? '').trim();
    const notRun = /^<!--\s*not-run:(.*?)-->$/.exec(above);
    if (notRun && !notRun[1]?.trim()) throw new Error(`${file}:${i}: not-run needs a reason`);
    const lang = RUNNABLE[info.split(/\s+/)[0]?.toLowerCase() ?? ''];
    blocks.push({
      file,
      line: i + 1,
      info,
      lang,
      code: body.join('\n'),
      ...(notRun ? { notRun: notRun[1]?.trim() ?? '' } : {}),
      background: /^<!--\s*run:\s*background\s*-->$/.test(above),
    });
    i = j;
  }
  return blocks;
}

export interface ShellStep {
  /** The commands up to an expectation (or the end of the block). */
  script: string;
  /** The output the docs show for the last command of `script`, if any. */
  expected?: string;
}

/** A shell block cut into steps at its `# -> output` comments. */
export function shellSteps(code: string): ShellStep[] {
  const steps: ShellStep[] = [];
  let script: string[] = [];
  const lines = code.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const arrow = /^\s*# ->\s?(.*)$/.exec(line);
    if (!arrow) {
      script.push(line);
      continue;
    }
    const expected = [arrow[1] ?? ''];
    while (i + 1 < lines.length && /^\s*#\s{2,}/.test(lines[i + 1] ?? '')) {
      expected.push((lines[i + 1] ?? '').replace(/^\s*#\s+/, ''));
      i++;
    }
    steps.push({ script: script.join('\n'), expected: expected.join(' ') });
    script = [];
  }
  if (script.some((l) => l.trim() && !l.trim().startsWith('#'))) steps.push({ script: script.join('\n') });
  return steps;
}

/**
 * The `"key":value` pairs of a shown output that are concrete (no `...`, `…` or `<placeholder>`),
 * written compactly as JSON writes them.
 */
export function expectedPairs(shown: string): string[] {
  const pairs: string[] = [];
  const re = /"([A-Za-z_][\w.]*)"\s*:\s*("(?:[^"\\]|\\.)*"|true|false|null|-?\d+(?:\.\d+)?)/g;
  for (const m of shown.matchAll(re)) {
    const value = m[2] ?? '';
    if (/\.\.\.|…|<[^>]*>/.test(value)) continue;
    pairs.push(`"${m[1]}":${value}`);
  }
  return pairs;
}

/** Output as the pairs are matched: `"key": value` written `"key":value`, as compact JSON has it. */
export function compactOutput(out: string): string {
  return out.replace(/"\s*:\s*/g, '":');
}
