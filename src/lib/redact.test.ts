import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { redactText, redactUrl } from './redact.js';

describe('redactUrl and redactText: one redaction everywhere', () => {
  it('URLs lose credentials, queries, fragments and key-like path parts; host and short parts stay', () => {
    assert.equal(redactUrl('https://user:pass@node.example:8545/'), 'https://node.example:8545/');
    assert.equal(
      redactUrl('https://mainnet.infura.io/v3/0123456789abcdef0123456789abcdef'),
      'https://mainnet.infura.io/v3/***',
    );
    assert.equal(redactUrl('https://api.example/rpc?apikey=secret#x'), 'https://api.example/rpc?***');
    assert.equal(redactUrl('not a url'), '***');
    assert.equal(redactUrl(null), null);
  });

  it('every URL inside a text is redacted; trailing punctuation stays outside; secrets become ***', () => {
    const text =
      'fetch failed for https://u:p@rpc.example/v2/abcdefghijklmnopqrstuvwxyz012345. Then http://h.example/x?key=k1 (retry) with key tron-key-123';
    assert.equal(
      redactText(text, ['tron-key-123', null, 'ab']),
      'fetch failed for https://rpc.example/v2/***. Then http://h.example/x?*** (retry) with key ***',
    );
  });
});
