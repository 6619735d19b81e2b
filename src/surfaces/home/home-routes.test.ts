import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { prefersHtml } from './home-routes.js';

describe('GET / content negotiation', () => {
  it('browsers get HTML; curl, JSON clients and no header get JSON', () => {
    assert.equal(prefersHtml('text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'), true);
    assert.equal(prefersHtml('*/*'), false);
    assert.equal(prefersHtml('application/json'), false);
    assert.equal(prefersHtml(undefined), false);
    assert.equal(prefersHtml('application/json, text/html;q=0.5'), false);
    assert.equal(prefersHtml('text/html;q=0'), false);
  });
});
