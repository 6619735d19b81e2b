import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { csvStream, neutraliseCell } from './csv-stream.js';

async function read(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += String(chunk);
  return text;
}

describe('csvStream', () => {
  it('writes the header, then each row as it comes', async () => {
    async function* rows() {
      yield { id: 'a', test: false };
      yield { id: 'b,c', test: true };
    }
    assert.equal(await read(csvStream(['id', 'test'], rows())), 'id,test\na,false\n"b,c",true\n');
  });

  it('a failed read ends the stream with the error instead of leaving it open', async () => {
    async function* rows() {
      yield { id: 'a' };
      throw new Error('database gone');
    }
    await assert.rejects(read(csvStream(['id'], rows())), /database gone/);
  });

  it('neutralises cells that start a formula (OWASP CSV injection), keeps plain numbers', () => {
    const table: Array<[string, string]> = [
      ['=HYPERLINK("http://example.invalid","x")', `'=HYPERLINK("http://example.invalid","x")`],
      ['+1+2', "'+1+2"],
      ['-2+3', "'-2+3"],
      ['@SUM(A1:A9)', "'@SUM(A1:A9)"],
      ['\tcmd', "'\tcmd"],
      ['\rcmd', "'\rcmd"],
      ['-100.00', '-100.00'],
      ['+5', '+5'],
      ['shop-42', 'shop-42'],
      ['', ''],
    ];
    for (const [input, expected] of table)
      assert.equal(neutraliseCell(input), expected, JSON.stringify(input));
  });

  it('a streamed row with a formula comes out quoted as text', async () => {
    async function* rows() {
      yield { id: '=1+1', amount: '-5.00' };
    }
    assert.equal(await read(csvStream(['id', 'amount'], rows())), "id,amount\n'=1+1,-5.00\n");
  });
});
