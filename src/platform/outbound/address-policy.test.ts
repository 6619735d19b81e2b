import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { allowlistedAddress, allowlistedHost, isPublicAddress, parseAllowlist } from './address-policy.js';

// Pure classification only: nothing here opens a connection or resolves a name.

/** Destinations a merchant URL must never reach (docs/decisions.md sections 9 and 11). */
const HOSTILE: Array<[string, string]> = [
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback, top of 127/8'],
  ['127.0.0.2', 'loopback, not the usual one'],
  ['10.0.0.1', 'private 10/8'],
  ['10.255.255.255', 'private 10/8, top'],
  ['172.16.0.1', 'private 172.16/12, bottom'],
  ['172.31.255.254', 'private 172.16/12, top'],
  ['192.168.1.1', 'private 192.168/16'],
  ['169.254.169.254', 'link-local: cloud metadata'],
  ['169.254.0.1', 'link-local'],
  ['100.64.0.1', 'CGNAT 100.64/10'],
  ['100.127.255.254', 'CGNAT, top'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'this network 0/8'],
  ['255.255.255.255', 'broadcast'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast SSDP'],
  ['240.0.0.1', 'reserved 240/4'],
  ['192.0.2.1', 'documentation TEST-NET-1'],
  ['198.51.100.1', 'documentation TEST-NET-2'],
  ['203.0.113.1', 'documentation TEST-NET-3'],
  ['198.18.0.1', 'benchmarking 198.18/15'],
  ['198.19.255.254', 'benchmarking, top'],
  ['192.0.0.8', 'IETF protocol assignments'],
  ['::', 'IPv6 unspecified'],
  ['::1', 'IPv6 loopback'],
  ['fe80::1', 'IPv6 link-local'],
  ['febf::1', 'IPv6 link-local, top of fe80::/10'],
  ['fc00::1', 'unique-local fc00::/7'],
  ['fd12::1', 'unique-local fd00::/8'],
  ['ff02::1', 'IPv6 multicast'],
  ['::ffff:127.0.0.1', 'IPv4-mapped loopback, dotted'],
  ['::ffff:10.0.0.1', 'IPv4-mapped private'],
  ['::ffff:7f00:1', 'IPv4-mapped loopback, hex (URL-parser form)'],
  ['::ffff:169.254.169.254', 'IPv4-mapped metadata'],
  ['::ffff:0:7f00:1', 'IPv4-translated (RFC 6145) loopback'],
  ['::127.0.0.1', 'IPv4-compatible loopback'],
  ['::7f00:1', 'IPv4-compatible loopback, hex'],
  ['::10.0.0.1', 'IPv4-compatible private'],
  ['64:ff9b::7f00:1', 'NAT64 of 127.0.0.1'],
  ['64:ff9b::a00:1', 'NAT64 of 10.0.0.1'],
  ['64:ff9b::a9fe:a9fe', 'NAT64 of 169.254.169.254'],
  ['2002:7f00:1::', '6to4 of loopback'],
  ['2002:a00:1::1', '6to4 of private'],
  ['2001::1', 'Teredo'],
  ['2001:db8::1', 'IPv6 documentation'],
  ['100::1', 'IPv6 discard-only'],
  ['5f00::1', 'outside global unicast 2000::/3'],
  ['[::1]', 'bracketed loopback'],
  ['[::ffff:127.0.0.1]', 'bracketed mapped loopback'],
  ['[fe80::1]', 'bracketed link-local'],
  ['not-an-ip', 'a name, not an address'],
  ['localhost', 'a name, not an address'],
  ['', 'empty'],
  ['[]', 'empty brackets'],
  ['0x7f000001', 'hex loopback (never canonical, still refused)'],
  ['2130706433', 'decimal loopback'],
  ['017700000001', 'octal loopback'],
  ['127.1', 'short-form loopback'],
  ['999.1.1.1', 'out of range octet'],
  ['::1::2', 'malformed IPv6'],
];

const PUBLIC: string[] = [
  '8.8.8.8',
  '1.1.1.1',
  '93.184.216.34',
  '172.32.0.1',
  '100.128.0.1',
  '2606:4700:4700::1111',
  '[2606:4700:4700::1111]',
  '2a00:1450:4001:81c::200e',
  '::ffff:8.8.8.8',
  '::ffff:808:808',
  '64:ff9b::808:808',
];

describe('isPublicAddress (docs/decisions.md sections 9, 11)', () => {
  it(`refuses ${HOSTILE.length} hostile addresses`, () => {
    assert.ok(HOSTILE.length >= 40, 'the table covers at least 40 addresses');
    const leaked = HOSTILE.filter(([address]) => isPublicAddress(address));
    assert.deepEqual(leaked, [], `classified as public: ${JSON.stringify(leaked)}`);
  });

  it('accepts public IPv4, IPv6, and mapped / NAT64 forms of public IPv4', () => {
    const refused = PUBLIC.filter((address) => !isPublicAddress(address));
    assert.deepEqual(refused, [], `refused although public: ${JSON.stringify(refused)}`);
  });
});

describe('the WHATWG URL parser gives the guard canonical literals', () => {
  const cases: Array<[string, string]> = [
    ['http://0x7f000001/', '127.0.0.1'],
    ['http://2130706433/', '127.0.0.1'],
    ['http://017700000001/', '127.0.0.1'],
    ['http://127.1/', '127.0.0.1'],
    ['http://0177.0.0.1/', '127.0.0.1'],
    ['http://127.0.0.1./', '127.0.0.1'],
    ['http://[::ffff:127.0.0.1]/', '[::ffff:7f00:1]'],
    ['http://[0:0:0:0:0:ffff:7f00:1]/', '[::ffff:7f00:1]'],
    ['http://[::127.0.0.1]/', '[::7f00:1]'],
  ];
  for (const [url, hostname] of cases) {
    it(`${url} -> ${hostname}, refused`, () => {
      const parsed = new URL(url).hostname;
      assert.equal(parsed, hostname);
      assert.equal(isPublicAddress(parsed), false, `${parsed} must be refused`);
    });
  }
});

describe('parseAllowlist (OUTBOUND_ALLOWLIST)', () => {
  it('reads host names, CIDRs, single IPv4/IPv6 (brackets allowed), trimmed and lower-cased', () => {
    const list = parseAllowlist(
      ' Hooks.Example.TEST. , 10.1.0.0/16,127.0.0.1, ::1 ,[fd00::5],,2001:db8::/32 ',
    );
    assert.deepEqual([...list.hosts], ['hooks.example.test']);
    assert.deepEqual(
      list.ranges.map(([ip, bits]) => `${ip.toString()}/${bits}`),
      ['10.1.0.0/16', '127.0.0.1/32', '::1/128', 'fd00::5/128', '2001:db8::/32'],
    );
  });

  it('is empty for an empty or missing value', () => {
    for (const text of [undefined, '', ' , ,']) {
      const list = parseAllowlist(text);
      assert.equal(list.hosts.size, 0, String(text));
      assert.equal(list.ranges.length, 0, String(text));
    }
  });

  for (const bad of ['foo_bar', 'a b', 'http://x', '10.0.0.0/33', '1.2.3.4/abc', 'host:80']) {
    it(`throws on the invalid entry ${JSON.stringify(bad)}`, () => {
      assert.throws(() => parseAllowlist(`127.0.0.1,${bad}`));
    });
  }
});

describe('allowlistedAddress / allowlistedHost', () => {
  const list = parseAllowlist('127.0.0.1,10.1.0.0/16,::1,fd00::/64,hooks.internal');

  const yes = ['127.0.0.1', '::ffff:127.0.0.1', '::ffff:7f00:1', '10.1.0.0', '10.1.255.255', '::1', '[::1]'];
  const no = [
    '127.0.0.2',
    '::ffff:127.0.0.2',
    '10.2.0.1',
    '10.0.255.255',
    'fd00:0:0:1::1',
    '::7f00:1',
    '64:ff9b::7f00:1',
    'hooks.internal',
    'not-an-ip',
    '',
  ];

  it('matches addresses inside the listed ranges, mapped IPv4 included', () => {
    assert.deepEqual(
      yes.filter((a) => !allowlistedAddress(list, a)),
      [],
    );
    assert.ok(allowlistedAddress(list, 'fd00::abcd'), 'fd00::/64');
  });

  it('does not match addresses outside them, nor names', () => {
    assert.deepEqual(
      no.filter((a) => allowlistedAddress(list, a)),
      [],
    );
  });

  it('matches host names exactly, ignoring case and a trailing dot', () => {
    assert.ok(allowlistedHost(list, 'hooks.internal'));
    assert.ok(allowlistedHost(list, 'HOOKS.Internal.'));
    for (const host of ['evil.hooks.internal', 'hooks.internal.evil', 'hooks', '127.0.0.1', 'localhost']) {
      assert.equal(allowlistedHost(list, host), false, host);
    }
  });

  it('an empty allowlist matches nothing', () => {
    const empty = parseAllowlist('');
    assert.equal(allowlistedAddress(empty, '127.0.0.1'), false);
    assert.equal(allowlistedHost(empty, 'localhost'), false);
  });
});
