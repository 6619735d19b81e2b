import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { escapeNonAscii, signBody, signedTextCandidates, verifySignature } from './signature.js';

const KEY = 'k'.repeat(64);
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

describe('signBody (docs/api.md Authentication)', () => {
  it('hashes "<API_KEY>|<body>"', () => {
    assert.equal(signBody(KEY, '{"a":1}'), sha(`${KEY}|{"a":1}`));
  });
  it('hashes "<API_KEY>|" for an empty body (GET, multipart)', () => {
    assert.equal(signBody(KEY, ''), sha(`${KEY}|`));
  });
});

describe('verifySignature with the compat candidates (docs/decisions.md section 4)', () => {
  const body = { merchant_id: 'm', comment: 'Привет' };
  const compact = JSON.stringify(body);
  const pretty = Buffer.from(JSON.stringify(body, null, 2));
  const escapedCompact = escapeNonAscii(compact);

  it('accepts the raw bytes', () => {
    assert.ok(verifySignature(KEY, signBody(KEY, pretty), signedTextCandidates(pretty, body)));
  });
  it('accepts a pretty body signed compact', () => {
    assert.ok(verifySignature(KEY, signBody(KEY, compact), signedTextCandidates(pretty, body)));
  });
  it('accepts Cyrillic signed \\u-escaped', () => {
    assert.equal(escapedCompact.includes('\\u041f'), true);
    assert.ok(verifySignature(KEY, signBody(KEY, escapedCompact), signedTextCandidates(pretty, body)));
  });
  it('accepts an uppercase hex header', () => {
    assert.ok(
      verifySignature(
        KEY,
        signBody(KEY, compact).toUpperCase(),
        signedTextCandidates(Buffer.from(compact), body),
      ),
    );
  });
  it('refuses another key, a changed body and a non-hex header', () => {
    const raw = Buffer.from(compact);
    assert.equal(verifySignature(KEY, signBody(`${KEY}x`, compact), signedTextCandidates(raw, body)), false);
    assert.equal(verifySignature(KEY, signBody(KEY, `${compact} `), signedTextCandidates(raw, body)), false);
    assert.equal(verifySignature(KEY, 'zz', signedTextCandidates(raw, body)), false);
  });
  it('for GET/multipart only "<API_KEY>|" counts', () => {
    assert.ok(verifySignature(KEY, signBody(KEY, ''), signedTextCandidates(Buffer.alloc(0), undefined)));
    assert.equal(
      verifySignature(KEY, signBody(KEY, '{}'), signedTextCandidates(Buffer.alloc(0), undefined)),
      false,
    );
  });
});
