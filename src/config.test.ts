import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig, parseEnv } from './config.js';

const PG = 'postgres://payments@127.0.0.1:5432/payments';

describe('configuration: every problem reported at once', () => {
  it('with DATABASE_URL and no secrets, one error names both ADMIN_TOKEN and SECRET_KEY', () => {
    assert.throws(
      () => loadConfig({ DATABASE_URL: PG }),
      (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        assert.match(err.message, /2 environment variables are missing or invalid/);
        assert.match(err.message, /ADMIN_TOKEN: required when DATABASE_URL is set/);
        assert.match(err.message, /SECRET_KEY: required when DATABASE_URL is set/);
        return true;
      },
    );
  });

  it('invalid values and missing secrets come in the same message; secrets are never echoed', () => {
    assert.throws(
      () =>
        loadConfig({
          DATABASE_URL: PG,
          PORT: 'eighty',
          LOG_LEVEL: 'loud',
          ADMIN_TOKEN: 'short-secret-value',
          OUTBOUND_ALLOWLIST: 'not a cidr/99',
        }),
      (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        const lines = err.message.split('\n').filter((l) => l.startsWith('  - '));
        const names = lines.map((l) => l.slice(4).split(/[ :]/)[0]).sort();
        assert.deepEqual(names, ['ADMIN_TOKEN', 'LOG_LEVEL', 'OUTBOUND_ALLOWLIST', 'PORT', 'SECRET_KEY']);
        assert.match(err.message, /PORT \(got "eighty"\)/);
        assert.doesNotMatch(err.message, /short-secret-value/);
        return true;
      },
    );
  });

  it('a single problem keeps the short form naming the variable', () => {
    assert.throws(() => parseEnv({ PORT: '99999' }), /^ConfigError: Invalid PORT \(got "99999"\)/);
  });

  it('a complete production environment loads', () => {
    const config = loadConfig({
      DATABASE_URL: PG,
      ADMIN_TOKEN: 'a'.repeat(32),
      SECRET_KEY: 'b'.repeat(40),
      NODE_ENV: 'production',
    });
    assert.equal(config.env, 'production');
    assert.equal(config.generatedSecrets, false);
  });
});
