import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../helpers/app.js';
import { type ConsoleSession, consoleLogin } from '../helpers/console.js';
import { multipartBody, pdfFile, pngFile } from '../helpers/files.js';
import { admin } from '../helpers/merchant-client.js';
import { type Books, operatorsByRole } from './holders-helpers.js';

// Settlement proofs (docs/decisions.md "Settlement proofs"): a settlement may carry its proof file
// (multipart, field `proof`), checked like a receipt (PDF, JPEG or PNG by content, at most 5 MB);
// the settlement row links it, operators with pool.read download it. A refused file or settlement
// writes nothing and keeps no file. Synthetic holders, references and files.

interface Settlement {
  id: string;
  reference: string | null;
  proof: { content_type: string; size_bytes: number; url: string } | null;
}

describe('holders: settlement proofs', () => {
  let t: TestApp;
  let as: Awaited<ReturnType<typeof operatorsByRole>>;
  let consoleAdmin: ConsoleSession;
  // A receipts directory of its own: the tests compare its files before and after a refusal, and
  // other test processes store receipts in the shared default directory meanwhile.
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'holders-proofs-test-'));
    t = await startTestApp({ config: { receiptsDir: dir } });
    as = await operatorsByRole(t);
    const user = { username: `admin-${randomUUID().slice(0, 6)}`, password: 'a long enough password 19' };
    await admin(t.app, 'POST', '/admin/operators', { ...user, role: 'admin' });
    consoleAdmin = await consoleLogin(t.app, user.username, user.password);
  });
  after(async () => {
    await t.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** A holder holding `held` RUB (an admin's correction). */
  async function holderHolding(held: string) {
    const holder = await admin<{ id: string }>(t.app, 'POST', '/admin/holders', { name: 'Synthetic proofs' });
    await admin(t.app, 'POST', `/admin/holders/${holder.id}/corrections`, {
      amount: held,
      reason: 'opening',
    });
    return holder.id;
  }

  const settleMultipart = (
    id: string,
    fields: Record<string, string>,
    file?: { filename: string; contentType: string; data: Buffer },
  ) => {
    const { body, contentType } = multipartBody(fields, file ? { field: 'proof', ...file } : undefined);
    return t.app.inject({
      method: 'POST',
      url: `/admin/holders/${id}/settlements`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': contentType },
      payload: body,
    });
  };
  const detail = (id: string) =>
    admin<{ books: Books; settlements: Settlement[] }>(t.app, 'GET', `/admin/holders/${id}`);
  const storedFiles = async () => (await readdir(t.config.receiptsDir)).filter((f) => !f.startsWith('.'));

  it('records a settlement with its PDF proof; the row links it; a viewer downloads the same bytes', async () => {
    const id = await holderHolding('5000');
    const pdf = pdfFile('Synthetic bank transfer slip');
    const res = await settleMultipart(
      id,
      { amount: '1500.50', method: 'bank_transfer', reference: 'synthetic slip 7', tx_hash: '' },
      { filename: 'slip.pdf', contentType: 'application/pdf', data: pdf },
    );
    assert.equal(res.statusCode, 200, res.body);
    const made = res.json().data as Settlement & { books: Books };
    assert.equal(made.books.held, '3499.5');
    assert.equal(made.proof?.content_type, 'application/pdf');
    assert.equal(made.proof?.size_bytes, pdf.length);
    const listed = (await detail(id)).settlements.find((s) => s.id === made.id);
    assert.deepEqual(listed?.proof, made.proof);
    // pool.read is enough to read it; the bytes are the upload's.
    const download = await as('viewer', 'GET', made.proof?.url ?? '');
    assert.equal(download.statusCode, 200, download.body);
    assert.equal(download.headers['content-type'], 'application/pdf');
    assert.match(String(download.headers['content-disposition']), /^attachment; filename="settlement-/);
    assert.deepEqual(download.rawPayload, pdf);
    // A settlement without a file (JSON, or multipart without one) has no proof; its link is 404.
    const plain = await admin<Settlement>(t.app, 'POST', `/admin/holders/${id}/settlements`, {
      amount: 1,
      method: 'cash',
      reference: 'synthetic cash',
    });
    assert.equal(plain.proof, null);
    const none = await as('viewer', 'GET', `/admin/holders/${id}/settlements/${plain.id}/proof`);
    assert.equal(none.statusCode, 404);
    // Another holder's path does not reach this proof.
    const other = await holderHolding('1');
    const wrong = await as('viewer', 'GET', `/admin/holders/${other}/settlements/${made.id}/proof`);
    assert.equal(wrong.statusCode, 404);
  });

  it('a wrong file type is refused with its code: nothing written, no file kept', async () => {
    const id = await holderHolding('5000');
    const before = await storedFiles();
    const text = await settleMultipart(
      id,
      { amount: '100', method: 'cash', reference: 'synthetic text' },
      { filename: 'slip.txt', contentType: 'text/plain', data: Buffer.from('not a document at all') },
    );
    assert.equal(text.statusCode, 400, text.body);
    assert.equal(text.json().message, 'RECEIPT_UNSUPPORTED_FORMAT');
    // A PNG sent as a PDF: its content decides.
    const disguised = await settleMultipart(
      id,
      { amount: '100', method: 'cash', reference: 'synthetic disguised' },
      { filename: 'slip.pdf', contentType: 'application/pdf', data: pngFile() },
    );
    assert.equal(disguised.statusCode, 400, disguised.body);
    assert.match(disguised.json().message, /^RECEIPT_/);
    const read = await detail(id);
    assert.equal(read.books.held, '5000');
    assert.equal(read.settlements.filter((s) => s.reference?.startsWith('synthetic')).length, 0);
    assert.deepEqual(await storedFiles(), before);
  });

  it('a refused settlement with a good file keeps no file; bad fields are VALIDATION_ERROR', async () => {
    const id = await holderHolding('100');
    const before = await storedFiles();
    const tooMuch = await settleMultipart(
      id,
      { amount: '100.01', method: 'cash', reference: 'synthetic too much' },
      { filename: 'slip.png', contentType: 'image/png', data: pngFile() },
    );
    assert.equal(tooMuch.statusCode, 409, tooMuch.body);
    assert.equal(tooMuch.json().message, 'SETTLEMENT_EXCEEDS_HELD');
    const badMethod = await settleMultipart(
      id,
      { amount: '1', method: 'wire', reference: 'synthetic' },
      { filename: 'slip.png', contentType: 'image/png', data: pngFile() },
    );
    assert.equal(badMethod.statusCode, 400, badMethod.body);
    assert.equal(badMethod.json().message, 'VALIDATION_ERROR');
    const noReference = await settleMultipart(id, { amount: '1', method: 'cash' });
    assert.equal(noReference.json().message, 'VALIDATION_ERROR');
    assert.deepEqual(await storedFiles(), before);
    assert.equal((await detail(id)).books.held, '100');
  });

  it('console: the settlement form takes a proof file; the page links it for download', async () => {
    const id = await holderHolding('900');
    const png = pngFile();
    const { body, contentType } = multipartBody(
      { _csrf: consoleAdmin.csrf, amount: '400', method: 'cash', reference: 'synthetic console slip' },
      { field: 'proof', filename: 'slip.png', contentType: 'image/png', data: png },
    );
    const done = await t.app.inject({
      method: 'POST',
      url: `/backoffice/holders/${id}/settlements`,
      headers: { cookie: consoleAdmin.cookie, 'content-type': contentType },
      payload: body,
    });
    assert.equal(done.statusCode, 303, done.body);
    assert.match(String(done.headers.location), /msg=holderSettled/);
    const page = await t.app.inject({
      method: 'GET',
      url: `/backoffice/holders/${id}?lang=en`,
      headers: { cookie: consoleAdmin.cookie },
    });
    assert.match(page.body, /enctype="multipart\/form-data"/);
    const link = /href="([^"]+\/proof)" data-testid="settlement-proof"/.exec(page.body)?.[1];
    assert.ok(link, 'the settlement links its proof');
    const file = await t.app.inject({ method: 'GET', url: link, headers: { cookie: consoleAdmin.cookie } });
    assert.equal(file.statusCode, 200);
    assert.equal(file.headers['content-type'], 'image/png');
    assert.deepEqual(file.rawPayload, png);
    // A wrong CSRF field in the parts is refused before anything is written.
    const forged = multipartBody({
      _csrf: 'forged',
      amount: '1',
      method: 'cash',
      reference: 'synthetic forged',
    });
    const refused = await t.app.inject({
      method: 'POST',
      url: `/backoffice/holders/${id}/settlements`,
      headers: { cookie: consoleAdmin.cookie, 'content-type': forged.contentType },
      payload: forged.body,
    });
    assert.equal(refused.statusCode, 403);
    assert.equal((await detail(id)).books.held, '500');
  });
});
