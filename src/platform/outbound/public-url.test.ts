import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError, type ErrorCode } from '../../lib/errors.js';
import { parseAllowlist } from './address-policy.js';
import { publicUrl } from './public-url.js';

// A merchant's URLs checked at creation (docs/decisions.md section 17): the createOrder callback as
// the sample; every merchant URL (event subscriptions, return_url, logo_url) goes through publicUrl.

function throwsCode(fn: () => unknown, code: ErrorCode, field?: string): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof AppError, `expected AppError, got ${String(err)}`);
    assert.equal(err.code, code);
    if (field !== undefined) assert.equal(err.details?.[0]?.field, field);
    return true;
  });
}

const url = (value: string | null | undefined, allowlist: ReturnType<typeof parseAllowlist>) =>
  publicUrl(value, allowlist, 'success_callback_url');

describe('publicUrl: success_callback_url', () => {
  const none = parseAllowlist('');
  it('none -> null', () => {
    assert.equal(url(undefined, none), null);
    assert.equal(url(null, none), null);
    assert.equal(url('', none), null);
  });
  it('absolute http(s) URLs are kept as given', () => {
    assert.equal(url('https://shop.example.com/hook?x=1', none), 'https://shop.example.com/hook?x=1');
    assert.equal(url('http://shop.example.com:8080/hook', none), 'http://shop.example.com:8080/hook');
    assert.equal(url('https://93.184.216.34/hook', none), 'https://93.184.216.34/hook');
    assert.equal(url('https://[2606:2800:220:1::1]/hook', none), 'https://[2606:2800:220:1::1]/hook');
  });
  const bad = [
    'ftp://shop.example.com/hook',
    '/relative/hook',
    'shop.example.com/hook',
    'javascript:alert(1)',
    'file:///etc/passwd',
    'not a url',
  ];
  for (const value of bad) {
    it(`${value} -> VALIDATION_ERROR on success_callback_url`, () =>
      throwsCode(() => url(value, none), 'VALIDATION_ERROR', 'success_callback_url'));
  }
  // docs/decisions.md section 17: a literal address the webhook could never reach is refused at creation.
  const unreachable = [
    'http://127.0.0.1/hook',
    'http://127.1/hook',
    'http://0x7f000001/hook',
    'http://2130706433/hook',
    'http://10.0.0.5/hook',
    'http://172.16.0.1/hook',
    'http://192.168.1.1:8080/hook',
    'http://169.254.169.254/latest/meta-data/',
    'http://100.64.0.1/hook',
    'http://0.0.0.0/hook',
    'http://[::1]/hook',
    'http://[::ffff:10.0.0.1]/hook',
    'http://[fd00::1]/hook',
    'http://[fe80::1]/hook',
    'http://localhost/hook',
    'http://LOCALHOST./hook',
    'http://api.localhost/hook',
  ];
  for (const value of unreachable) {
    it(`${value} -> VALIDATION_ERROR on success_callback_url (never deliverable)`, () =>
      throwsCode(() => url(value, none), 'VALIDATION_ERROR', 'success_callback_url'));
  }
  it('an allowlisted literal or name is taken (OUTBOUND_ALLOWLIST, development only)', () => {
    const dev = parseAllowlist('127.0.0.1,localhost,10.0.0.0/8');
    assert.equal(url('http://127.0.0.1:9/hook', dev), 'http://127.0.0.1:9/hook');
    assert.equal(url('http://localhost/hook', dev), 'http://localhost/hook');
    assert.equal(url('http://10.1.2.3/hook', dev), 'http://10.1.2.3/hook');
    throwsCode(() => url('http://192.168.0.1/hook', dev), 'VALIDATION_ERROR', 'success_callback_url');
  });
  it('names that resolve later are left to the connect-time guard', () => {
    assert.equal(url('http://internal.example/hook', none), 'http://internal.example/hook');
  });
});
