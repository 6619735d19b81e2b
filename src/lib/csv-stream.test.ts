import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { csvStream } from './csv-stream.js';

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
});
