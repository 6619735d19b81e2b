import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { addRequisite, admin, createMerchant, createOrder } from '../helpers/merchant-client.js';

/** The parts of an OpenAPI operation this test reads. */
interface OpenApiOperation {
  operationId?: string;
  responses?: Record<string, { content?: Record<string, { schema?: Record<string, unknown> }> }>;
}

const MERCHANT_ROUTES = [
  ['post', '/merchant/createOrder'],
  ['get', '/merchant/order/{id}'],
  ['get', '/merchant/orders'],
  ['get', '/merchant/balance/{merchant_id}'],
  ['get', '/merchant/banks'],
  ['get', '/merchant/bank-standards'],
  ['get', '/merchant/pool/requisites'],
  ['post', '/merchant/receipt/upload'],
] as const;

describe('OpenAPI document and metrics (README "Deployment")', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it('/docs/json is a valid OpenAPI 3.1 document with every merchant route, auth and examples', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/docs/json' });
    assert.equal(res.statusCode, 200);
    const doc = res.json();
    assert.equal(doc.openapi, '3.1.0');
    const result = await new Validator().validate(doc);
    assert.equal(result.valid, true, String(JSON.stringify(result.errors ?? null)).slice(0, 2000));
    for (const [method, path] of MERCHANT_ROUTES) {
      const op = doc.paths?.[path]?.[method];
      assert.ok(op, `${method} ${path} is documented`);
      assert.deepEqual(op.security, [{ clientApiKey: [], signature: [] }], `${path} declares the signature`);
      const media = op.responses?.['200']?.content?.['application/json'];
      assert.ok(media?.example ?? media?.examples, `${path} has an example answer`);
    }
    assert.match(doc.info.description, /sha256|SHA-256/i);
    assert.ok(doc.webhooks?.orderSuccess, 'the webhook is described');
    assert.equal(
      Object.keys(doc.paths).some((p) => p.startsWith('/backoffice')),
      false,
    );
    const ui = await t.app.inject({ method: 'GET', url: '/docs' });
    assert.ok([200, 302].includes(ui.statusCode));
  });

  it('every route has a unique operationId and a typed answer (docs/api.md "Beyond the merchant interface")', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/docs/json' })).json();
    const seen = new Map<string, string>();
    for (const [path, operations] of Object.entries<Record<string, OpenApiOperation>>(doc.paths)) {
      for (const [method, op] of Object.entries(operations)) {
        const where = `${method.toUpperCase()} ${path}`;
        assert.match(op.operationId ?? '', /^[a-z][A-Za-z0-9]+$/, `${where} has an operationId`);
        assert.equal(seen.get(op.operationId ?? ''), undefined, `${where} repeats ${op.operationId}`);
        seen.set(op.operationId ?? '', where);
        const answers = Object.entries(op.responses ?? {}).filter(([code]) => code.startsWith('2'));
        assert.ok(answers.length > 0, `${where} declares a success answer`);
        for (const [code, answer] of answers) {
          const schema = answer.content?.['application/json']?.schema;
          if (!answer.content?.['application/json']) continue;
          const typed = schema?.$ref || schema?.properties || schema?.items || schema?.anyOf || schema?.oneOf;
          assert.ok(typed, `${where} ${code} answers a typed schema, not an open object`);
        }
      }
    }
    assert.ok(seen.size >= 50, `all routes are documented (${seen.size})`);
  });

  it('/metrics counts requests, orders, outcomes and pool use in Prometheus format', async () => {
    const merchant = await createMerchant(t.app);
    await addRequisite(t.app);
    const order = (await createOrder(t.app, merchant)).json();
    await admin(t.app, 'POST', `/admin/orders/${order.id}/confirm`, {});
    const res = await t.app.inject({ method: 'GET', url: '/metrics' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /text\/plain/);
    const text = res.body;
    assert.match(
      text,
      /http_requests_total\{route="\/merchant\/createOrder",method="POST",status="200"\} \d+/,
    );
    assert.match(
      text,
      /http_request_duration_seconds_bucket\{le="0\.05",route="\/merchant\/createOrder",method="POST"\}/,
    );
    assert.match(text, /orders_created_total\{type="sim",direction="PAYIN"\} [1-9]/);
    assert.match(text, /orders_finished_total\{type="sim",direction="PAYIN",status="success"\} [1-9]/);
    assert.match(text, /webhook_outbox_lag_seconds \d/);
    assert.match(text, /db_pool_connections\{state="total"\} \d/);
    assert.match(text, /rate_limit_rejections_total/);
    assert.match(text, /process_resident_memory_bytes/);
  });
});
