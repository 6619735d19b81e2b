import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from './errors.js';
import { ipAllowed, parseIpRanges } from './ip-ranges.js';

describe('operator IP allowlists', () => {
  it('normalises addresses and ranges; refuses anything else naming the field', () => {
    assert.deepEqual(parseIpRanges([' 10.0.0.0/8', '2001:DB8::1', '192.168.1.7']), [
      '10.0.0.0/8',
      '2001:db8::1',
      '192.168.1.7',
    ]);
    for (const bad of ['10.0.0.0/33', 'example.com', '1.2.3', '']) {
      assert.throws(
        () => parseIpRanges([bad]),
        (e: unknown) => e instanceof AppError && JSON.stringify(e.details).includes('ip_allowlist'),
        bad,
      );
    }
    assert.throws(() => parseIpRanges(Array.from({ length: 51 }, () => '10.0.0.1')));
  });

  it('an empty list allows all; ranges, single addresses and IPv4-mapped IPv6 match', () => {
    assert.equal(ipAllowed([], '203.0.113.9'), true);
    const list = parseIpRanges(['10.1.0.0/16', '203.0.113.9', '2001:db8::/32']);
    const cases: Array<[string, boolean]> = [
      ['10.1.200.3', true],
      ['10.2.0.1', false],
      ['203.0.113.9', true],
      ['203.0.113.10', false],
      ['::ffff:10.1.0.5', true],
      ['::ffff:127.0.0.1', false],
      ['2001:db8:5::1', true],
      ['2001:db9::1', false],
      ['not-an-ip', false],
    ];
    for (const [ip, expected] of cases) assert.equal(ipAllowed(list, ip), expected, ip);
  });
});
