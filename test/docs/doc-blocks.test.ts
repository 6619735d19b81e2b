import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compactOutput, docBlocks, expectedPairs, shellSteps } from '../helpers/doc-blocks.js';

describe('the docs test reads blocks by an explicit rule', () => {
  it('runs sh/js/ts blocks, shows others, honours not-run (with a reason) and background', () => {
    const md = [
      '```sh',
      'echo 1',
      '```',
      '<!-- not-run: a production template -->',
      '```bash',
      'rm -rf /',
      '```',
      '```ini',
      '[Unit]',
      '```',
      '<!-- run: background -->',
      '```js',
      'setInterval(() => {}, 1000);',
      '```',
      '   ```sh',
      '   echo indented',
      '   ```',
    ].join('\n');
    const blocks = docBlocks('x.md', md);
    assert.deepEqual(
      blocks.map((b) => [b.lang, b.notRun ?? null, b.background, b.code]),
      [
        ['sh', null, false, 'echo 1'],
        ['sh', 'a production template', false, 'rm -rf /'],
        [undefined, null, false, '[Unit]'],
        ['js', null, true, 'setInterval(() => {}, 1000);'],
        ['sh', null, false, 'echo indented'],
      ],
    );
  });

  it('refuses a fence without an info string and a not-run without a reason', () => {
    assert.throws(() => docBlocks('x.md', '```\nls\n```'), /x\.md:1: a code block needs an info string/);
    assert.throws(() => docBlocks('x.md', '<!-- not-run: -->\n```sh\nls\n```'), /not-run needs a reason/);
  });

  it('cuts a shell block at its shown outputs and keeps only concrete pairs', () => {
    const steps = shellSteps(
      [
        'BODY=1',
        'curl -s x',
        '# -> {"ok":true,"id":"lux0199...","status":"pending",',
        '#     "amountAfterFee":975,"holder_name":"<name>"}',
        'npm run -s admin -- order confirm order-1',
        '# the operator confirms',
      ].join('\n'),
    );
    assert.equal(steps.length, 2);
    assert.equal(steps[0]?.script, 'BODY=1\ncurl -s x');
    assert.deepEqual(expectedPairs(steps[0]?.expected ?? ''), [
      '"ok":true',
      '"status":"pending"',
      '"amountAfterFee":975',
    ]);
    assert.equal(steps[1]?.expected, undefined);
    assert.equal(
      compactOutput('{\n  "api_key": "k",\n  "ok": true\n}'),
      '{\n  "api_key":"k",\n  "ok":true\n}',
    );
  });
});
