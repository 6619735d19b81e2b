// Readers of this repository have no issue tracker: source, tests and docs cite the docs/ section
// that records a decision (docs/decisions.md "section N", a docs/api.md or README heading), never a
// tracker issue number. This check lists every file:line under src/, test/, docs/, bench/, scripts/, README.md and
// packages/ (tracked files; node_modules and dist skipped) that names one, and exits 1 if any does.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const ROOTS = ['src', 'test', 'docs', 'README.md', 'packages', 'bench', 'scripts'];
const REFERENCE = /\b[Ii]ssues? #?[0-9]+/;

const files = execFileSync('git', ['ls-files', '-z', '--', ...ROOTS], { encoding: 'utf8' })
  .split('\0')
  .filter((path) => path && !/(^|\/)(node_modules|dist)\//.test(path));

const found = [];
for (const path of files) {
  let bytes;
  try {
    bytes = readFileSync(path);
  } catch {
    continue; // listed by git but deleted in the work tree
  }
  if (bytes.includes(0)) continue; // binary
  bytes
    .toString('utf8')
    .split('\n')
    .forEach((line, i) => {
      if (REFERENCE.test(line)) found.push(`${path}:${i + 1}: ${line.trim()}`);
    });
}

if (found.length > 0) {
  console.error(`Cite the docs/ section, not a tracker issue (${found.length}):\n${found.join('\n')}`);
  process.exit(1);
}
console.log('no tracker issue references in src, test, docs, README.md, packages, bench, scripts');
