import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type StartFacts, startBanner } from './start-banner.js';

const facts = (over: Partial<StartFacts> = {}): StartFacts => ({
  url: 'http://127.0.0.1:3000',
  embeddedDir: '/srv/data',
  secretsFile: '/srv/data/secrets.json',
  generatedAdminToken: undefined,
  adminTokenFromEnv: false,
  counts: { merchants: 0, requisites: 0, operators: 0 },
  ...over,
});

describe('start banner', () => {
  it('the first start shows the generated admin token and where it is kept', () => {
    const text = startBanner(facts({ generatedAdminToken: 'tok123' })).join('\n');
    assert.match(text, /Admin token \(generated now, kept in \/srv\/data\/secrets\.json\): tok123/);
  });

  it('a later start never shows the token and says how to print it again', () => {
    const text = startBanner(facts()).join('\n');
    assert.doesNotMatch(text, /tok123/);
    assert.match(text, /kept in \/srv\/data\/secrets\.json; print it with: npm run -s admin -- token/);
  });

  it('with ADMIN_TOKEN from the environment it points there', () => {
    const text = startBanner(facts({ embeddedDir: undefined, adminTokenFromEnv: true })).join('\n');
    assert.match(text, /PostgreSQL \(DATABASE_URL\)/);
    assert.match(text, /the ADMIN_TOKEN this process was started with/);
  });

  it('"next" hints show only for kinds that have nothing yet', () => {
    const empty = startBanner(facts()).join('\n');
    assert.match(empty, /merchant create shop1/);
    assert.match(empty, /requisite add/);
    assert.match(empty, /operator create alice/);
    const some = startBanner(facts({ counts: { merchants: 1, requisites: 0, operators: 2 } })).join('\n');
    assert.doesNotMatch(some, /merchant create/);
    assert.match(some, /requisite add/);
    assert.doesNotMatch(some, /operator create/);
    const all = startBanner(facts({ counts: { merchants: 1, requisites: 1, operators: 1 } }));
    assert.equal(all.filter((l) => l.startsWith('Next')).length, 0);
  });

  it('links the page that lists the portal, the console and the API docs', () => {
    assert.ok(startBanner(facts()).some((l) => l.includes('http://127.0.0.1:3000/ (')));
  });
});
