// Properties of the signature functions (docs/api.md "Authentication"; docs/decisions.md section 4),
// 10,000 generated cases each. The seed is random per run and printed; replay with FUZZ_SEED=<seed>.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import fc, { type Arbitrary } from 'fast-check';
import { escapeNonAscii, signBody, signedTextCandidates, verifySignature } from './signature.js';

const RUNS = 10_000;
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Date.now() % 2_147_483_647;
console.log(`signature properties: FUZZ_SEED=${SEED}`);

function check<T extends [unknown, ...unknown[]]>(property: fc.IProperty<T>) {
  try {
    fc.assert(property, { numRuns: RUNS, seed: SEED });
  } catch (err) {
    const cause = (err as { cause?: unknown }).cause;
    throw new Error(
      `property failed (replay with FUZZ_SEED=${SEED})\n${(err as Error).message}\n${cause instanceof Error ? cause.message : ''}`,
    );
  }
}

const sha256 = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');
const ASCII_ONLY = /^[^\u0080-\uffff]*$/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** One UTF-16 unit or code point: ASCII, any grapheme, any code point, or a lone surrogate / control. */
const unit: Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 1 }) },
  { weight: 3, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '\ud800',
      '\udbff',
      '\udc00',
      '\udfff',
      '\u0000',
      '\u2028',
      '\u202e',
      '\ufeff',
      '\uffff',
      '\u0080',
    ),
  },
);
const anyString = fc.string({ unit, maxLength: 40 });
/** An API key: printable ASCII, as issued (hex) or not. */
const keyArb = fc.oneof(
  fc.stringMatching(/^[0-9a-f]{64}$/),
  fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 80 }),
);
const jsonObject: Arbitrary<Record<string, unknown>> = fc.dictionary(
  fc.string({ unit, maxLength: 8 }),
  fc.jsonValue({ maxDepth: 3, stringUnit: unit }),
  { maxKeys: 5 },
);

describe('escapeNonAscii', () => {
  it('writes ASCII only, and JSON.parse reads the same value back (any JSON value)', () => {
    check(
      fc.property(fc.jsonValue({ maxDepth: 4, stringUnit: unit }), (value) => {
        const compact = JSON.stringify(value);
        const escaped = escapeNonAscii(compact);
        assert.match(escaped, ASCII_ONLY);
        assert.deepEqual(JSON.parse(escaped), JSON.parse(compact));
      }),
    );
  });

  it('round-trips every string, lone surrogates included, and changes only non-ASCII units', () => {
    check(
      fc.property(anyString, (s) => {
        const escaped = escapeNonAscii(JSON.stringify(s));
        assert.equal(JSON.parse(escaped), s);
        // Each non-ASCII UTF-16 unit becomes exactly one \uXXXX (6 characters); ASCII stays as is.
        const nonAscii = [...JSON.stringify(s)].reduce(
          (n, ch) => n + (ch.length === 2 ? 2 : ch.charCodeAt(0) > 0x7f ? 1 : 0),
          0,
        );
        assert.equal(escaped.length, JSON.stringify(s).length + 5 * nonAscii);
      }),
    );
  });

  it('is the identity on ASCII text, and idempotent on any text', () => {
    check(
      fc.property(
        fc.string({ unit: 'binary-ascii', maxLength: 60 }).filter((s) => ASCII_ONLY.test(s)),
        anyString,
        (ascii, s) => {
          assert.equal(escapeNonAscii(ascii), ascii);
          assert.equal(escapeNonAscii(escapeNonAscii(s)), escapeNonAscii(s));
        },
      ),
    );
  });

  it('writes lowercase hex, 4 digits per UTF-16 unit', () => {
    check(
      fc.property(fc.integer({ min: 0x80, max: 0xffff }), (code) => {
        const ch = String.fromCharCode(code);
        assert.equal(escapeNonAscii(ch), `\\u${code.toString(16).padStart(4, '0')}`);
      }),
    );
  });
});

describe('signBody', () => {
  it('is the lowercase hex SHA-256 of "<API_KEY>|<body>", the same for a string and its UTF-8 bytes', () => {
    check(
      fc.property(
        keyArb,
        anyString.filter((s) => !LONE_SURROGATE.test(s)),
        (key, body) => {
          const sig = signBody(key, body);
          assert.match(sig, /^[0-9a-f]{64}$/);
          assert.equal(sig, sha256(`${key}|${body}`));
          assert.equal(signBody(key, Buffer.from(body, 'utf8')), sig);
        },
      ),
    );
  });
});

describe('signedTextCandidates', () => {
  it('without a parsed body: only the raw bytes', () => {
    check(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        const raw = Buffer.from(bytes);
        assert.deepEqual([...signedTextCandidates(raw, undefined)], [raw]);
      }),
    );
  });

  it('with a parsed body: raw, then compact, then escaped compact only when it differs', () => {
    check(
      fc.property(jsonObject, fc.constantFrom<string | number>(0, 2, '\t'), (body, indent) => {
        const raw = Buffer.from(JSON.stringify(body, null, indent));
        const parsed: unknown = JSON.parse(raw.toString('utf8'));
        const compact = JSON.stringify(body);
        const escaped = escapeNonAscii(compact);
        const expected = escaped === compact ? [raw, compact] : [raw, compact, escaped];
        assert.deepEqual([...signedTextCandidates(raw, parsed)], expected);
      }),
    );
  });
});

describe('verifySignature accepts what was signed, over the candidates', () => {
  it('accepts a signature of the raw bytes, of the compact JSON and of the escaped compact JSON', () => {
    check(
      fc.property(keyArb, jsonObject, fc.constantFrom<string | number>(2, 4, '\t'), (key, body, indent) => {
        const raw = Buffer.from(JSON.stringify(body, null, indent));
        const parsed: unknown = JSON.parse(raw.toString('utf8'));
        const compact = JSON.stringify(body);
        for (const signed of [raw, compact, escapeNonAscii(compact)]) {
          assert.ok(verifySignature(key, signBody(key, signed), signedTextCandidates(raw, parsed)));
        }
        // The escaped body sent as is, signed over its own text.
        const escapedRaw = Buffer.from(escapeNonAscii(compact));
        assert.ok(
          verifySignature(
            key,
            signBody(key, escapedRaw),
            signedTextCandidates(escapedRaw, JSON.parse(compact)),
          ),
        );
      }),
    );
  });

  it('accepts the same hex in upper case or with surrounding whitespace (header value, by design)', () => {
    check(
      fc.property(keyArb, fc.string({ maxLength: 40 }), fc.constantFrom(' ', '\t', '  '), (key, body, ws) => {
        const raw = Buffer.from(body);
        const sig = signBody(key, raw);
        assert.ok(verifySignature(key, sig.toUpperCase(), signedTextCandidates(raw, undefined)));
        assert.ok(verifySignature(key, `${ws}${sig}${ws}`, signedTextCandidates(raw, undefined)));
      }),
    );
  });
});

describe('verifySignature refuses what was not signed', () => {
  it('refuses any change of one hex digit to another, any deletion, any inserted non-space character', () => {
    check(
      fc.property(
        keyArb,
        jsonObject,
        fc.nat(63),
        fc.integer({ min: 1, max: 15 }),
        fc.integer({ min: 0x21, max: 0x7e }),
        (key, body, at, shift, inserted) => {
          const compact = JSON.stringify(body);
          const raw = Buffer.from(compact);
          const candidates = () => signedTextCandidates(raw, JSON.parse(compact));
          const sig = signBody(key, compact);
          assert.ok(verifySignature(key, sig, candidates()));
          const digit = ((Number.parseInt(sig[at] ?? '0', 16) + shift) % 16).toString(16);
          assert.equal(
            verifySignature(key, sig.slice(0, at) + digit + sig.slice(at + 1), candidates()),
            false,
          );
          assert.equal(verifySignature(key, sig.slice(0, at) + sig.slice(at + 1), candidates()), false);
          const withChar = sig.slice(0, at) + String.fromCharCode(inserted) + sig.slice(at);
          assert.equal(verifySignature(key, withChar, candidates()), false);
        },
      ),
    );
  });

  it('refuses another key, and a text that is none of the candidates', () => {
    check(
      fc.property(
        keyArb,
        keyArb,
        jsonObject,
        fc.constantFrom(' ', '\n', 'x', '{}'),
        (key, other, body, extra) => {
          fc.pre(key !== other);
          const compact = JSON.stringify(body);
          const raw = Buffer.from(compact);
          const candidates = () => signedTextCandidates(raw, JSON.parse(compact));
          assert.equal(verifySignature(key, signBody(other, compact), candidates()), false);
          assert.equal(verifySignature(key, signBody(key, `${compact}${extra}`), candidates()), false);
        },
      ),
    );
  });

  it('refuses, for a duplicate key, the text with the first value (the parsed JSON keeps the last)', () => {
    check(
      fc.property(
        keyArb,
        fc.string({ maxLength: 8 }),
        fc.jsonValue({ maxDepth: 1 }),
        fc.jsonValue({ maxDepth: 1 }),
        (key, name, first, last) => {
          const a = JSON.stringify(first);
          const b = JSON.stringify(last);
          fc.pre(a !== b);
          const k = JSON.stringify(name);
          const raw = Buffer.from(`{${k}:${a},${k}:${b}}`);
          const parsed: unknown = JSON.parse(raw.toString('utf8'));
          assert.equal(
            verifySignature(key, signBody(key, `{${k}:${a}}`), signedTextCandidates(raw, parsed)),
            false,
          );
          assert.ok(verifySignature(key, signBody(key, `{${k}:${b}}`), signedTextCandidates(raw, parsed)));
        },
      ),
    );
  });
});
