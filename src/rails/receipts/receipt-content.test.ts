import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jpegFile, padTo, pdfFile, pngFile } from '../../../test/helpers/files.js';
import { AppError } from '../../lib/errors.js';
import { judgeReceiptContent, MAX_RECEIPT_BYTES, RECEIPT_TYPES, SNIFF_BYTES } from './receipt-content.js';
import { MAX_REDIRECTS, parseReceiptUrl, RECEIPT_URL_TIMEOUT_MS } from './receipt-fetch.js';

// Unit tests of the receipt content rules (docs/api.md receipt rules 2-3, docs/decisions.md section 9)
// and of the receipt URL parser. No network: parseReceiptUrl only parses.

/** A JPEG as cameras write it (SOI, APP1/Exif), not the JFIF form of the helper. */
const exifJpeg = Buffer.from([
  0xff, 0xd8, 0xff, 0xe1, 0x00, 0x0e, 0x45, 0x78, 0x69, 0x66, 0x00, 0x00, 0x4d, 0x4d, 0x00, 0x2a, 0x00, 0x00,
  0x00, 0x08, 0xff, 0xd9,
]);

const heads = {
  pdf: pdfFile(),
  png: pngFile(),
  jpeg: jpegFile(),
  exif: exifJpeg,
  /** A sniff-sized head of a large file: only the first SNIFF_BYTES are ever judged. */
  bigPdf: padTo(pdfFile(), SNIFF_BYTES),
};

describe('receipt constants', () => {
  it('5 MB, 15 s, 3 redirects, PDF/JPEG/PNG only', () => {
    assert.equal(MAX_RECEIPT_BYTES, 5 * 1024 * 1024);
    assert.equal(RECEIPT_URL_TIMEOUT_MS, 15_000);
    assert.equal(MAX_REDIRECTS, 3);
    assert.deepEqual(Object.keys(RECEIPT_TYPES).sort(), ['application/pdf', 'image/jpeg', 'image/png']);
  });
});

describe('judgeReceiptContent: accepted by content', () => {
  const cases: Array<[string, Buffer, { mimetype?: string; filename?: string }, string]> = [
    ['PDF, declared pdf', heads.pdf, { mimetype: 'application/pdf', filename: 'r.pdf' }, 'application/pdf'],
    ['PNG, declared png', heads.png, { mimetype: 'image/png', filename: 'r.png' }, 'image/png'],
    ['JFIF JPEG, declared jpeg', heads.jpeg, { mimetype: 'image/jpeg', filename: 'r.jpg' }, 'image/jpeg'],
    ['Exif JPEG, .jpeg name', heads.exif, { mimetype: 'image/jpeg', filename: 'scan.jpeg' }, 'image/jpeg'],
    ['JPEG declared image/jpg (common alias)', heads.jpeg, { mimetype: 'image/jpg' }, 'image/jpeg'],
    ['PDF head of a big file', heads.bigPdf, { mimetype: 'application/pdf' }, 'application/pdf'],
    ['PNG, nothing declared', heads.png, {}, 'image/png'],
    [
      'PDF, octet-stream, no extension',
      heads.pdf,
      { mimetype: 'application/octet-stream' },
      'application/pdf',
    ],
    [
      'PNG, octet-stream, .png',
      heads.png,
      { mimetype: 'application/octet-stream', filename: 'a.png' },
      'image/png',
    ],
    ['PNG, file name without extension', heads.png, { filename: 'receipt' }, 'image/png'],
    [
      'PDF, mime with parameters',
      heads.pdf,
      { mimetype: 'application/pdf; name="r.pdf"' },
      'application/pdf',
    ],
    ['PNG, uppercase mime and name', heads.png, { mimetype: 'IMAGE/PNG', filename: 'R.PNG' }, 'image/png'],
    ['JPEG, upper .JPG', heads.jpeg, { mimetype: 'image/jpeg', filename: 'IMG_1.JPG' }, 'image/jpeg'],
    // docs/decisions.md section 16: only a declared PDF/JPEG/PNG that contradicts the bytes is a mismatch.
    [
      'PDF, no type (busboy says text/plain), .pdf',
      heads.pdf,
      { mimetype: 'text/plain', filename: 'r.pdf' },
      'application/pdf',
    ],
    ['PNG, no type (text/plain), no name', heads.png, { mimetype: 'text/plain' }, 'image/png'],
    [
      'PNG declared text/html (not a receipt type: no claim)',
      heads.png,
      { mimetype: 'text/html' },
      'image/png',
    ],
    [
      'PDF named .html (not a receipt name: no claim)',
      heads.pdf,
      { mimetype: 'application/pdf', filename: 'r.html' },
      'application/pdf',
    ],
    ['PDF named .pdf.exe', heads.pdf, { filename: 'r.pdf.exe' }, 'application/pdf'],
    [
      'JPEG named scan.bin, text/plain',
      heads.jpeg,
      { mimetype: 'text/plain', filename: 'scan.bin' },
      'image/jpeg',
    ],
  ];
  for (const [name, head, declared, mime] of cases) {
    it(name, async () => {
      const verdict = await judgeReceiptContent(head, declared);
      assert.equal(verdict.ok, true, JSON.stringify(verdict));
      assert.equal(verdict.ok && verdict.mime, mime, JSON.stringify(verdict));
    });
  }
  it('the extension comes from the content', async () => {
    const verdict = await judgeReceiptContent(heads.png, { filename: 'x' });
    assert.deepEqual(verdict, { ok: true, mime: 'image/png', ext: 'png' });
  });
});

describe('judgeReceiptContent: declared type or name differs from the content -> mismatch', () => {
  const cases: Array<[string, Buffer, { mimetype?: string; filename?: string }]> = [
    ['PNG named .pdf (type generic)', heads.png, { mimetype: 'application/octet-stream', filename: 'r.pdf' }],
    ['PNG named .pdf and declared pdf', heads.png, { mimetype: 'application/pdf', filename: 'r.pdf' }],
    [
      'PNG declared application/pdf, name .png',
      heads.png,
      { mimetype: 'application/pdf', filename: 'r.png' },
    ],
    ['PNG declared application/pdf, no name', heads.png, { mimetype: 'application/pdf' }],
    ['PDF declared image/png', heads.pdf, { mimetype: 'image/png' }],
    ['PDF named .jpg', heads.pdf, { filename: 'r.jpg' }],
    ['JPEG declared image/png', heads.jpeg, { mimetype: 'image/png' }],
    ['JPEG named .png', heads.jpeg, { mimetype: 'image/jpeg', filename: 'r.png' }],
    ['PNG declared image/jpg', heads.png, { mimetype: 'image/jpg' }],
    ['JPEG, no type (text/plain), named .png', heads.jpeg, { mimetype: 'text/plain', filename: 'r.png' }],
  ];
  for (const [name, head, declared] of cases) {
    it(name, async () => {
      const verdict = await judgeReceiptContent(head, declared);
      assert.deepEqual(verdict, { ok: false, problem: 'mismatch' });
    });
  }
});

describe('judgeReceiptContent: content not PDF/JPEG/PNG -> unsupported', () => {
  const zip = Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x00, 0x00, 0x08, 0x00, ...Buffer.alloc(40)]);
  const cases: Array<[string, Buffer, { mimetype?: string; filename?: string }]> = [
    ['HTML named .pdf', Buffer.from('<!doctype html><html><body>paid</body></html>'), { filename: 'r.pdf' }],
    [
      'HTML declared application/pdf',
      Buffer.from('<html><script>x()</script></html>'),
      { mimetype: 'application/pdf' },
    ],
    ['zip named .png', zip, { mimetype: 'image/png', filename: 'r.png' }],
    ['empty file', Buffer.alloc(0), { mimetype: 'application/pdf', filename: 'r.pdf' }],
    ['zeros', Buffer.alloc(4096), {}],
    ['GIF', Buffer.from('GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\xff\xff\x00\x00\x00,\x00\x00\x00\x00;'), {}],
    ['plain text', Buffer.from('I paid, honestly'), { mimetype: 'text/plain', filename: 'r.txt' }],
    [
      'SVG',
      Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>x()</script></svg>'),
      { filename: 'r.png' },
    ],
    ['"%PDF" not at the start', Buffer.concat([Buffer.from('<html>'), pdfFile()]), { filename: 'r.pdf' }],
    ['truncated PNG signature', pngFile().subarray(0, 4), { mimetype: 'image/png' }],
  ];
  for (const [name, head, declared] of cases) {
    it(name, async () => {
      const verdict = await judgeReceiptContent(head, declared);
      assert.deepEqual(verdict, { ok: false, problem: 'unsupported' });
    });
  }
});

describe('parseReceiptUrl', () => {
  const invalid = [
    'ftp://127.0.0.1/r.pdf',
    'file:///etc/passwd',
    'javascript:alert(1)',
    'data:application/pdf;base64,JVBERi0=',
    'gopher://127.0.0.1:70/_x',
    '/relative/r.pdf',
    'r.pdf',
    '//127.0.0.1/r.pdf',
    'not a url',
    '',
    'http://',
    'https://[::1/r.pdf',
    'ws://127.0.0.1/r.pdf',
  ];
  for (const text of invalid) {
    it(`refuses ${JSON.stringify(text)} with RECEIPT_URL_INVALID`, () => {
      assert.throws(
        () => parseReceiptUrl(text),
        (err: unknown) => err instanceof AppError && err.code === 'RECEIPT_URL_INVALID' && err.status === 400,
      );
    });
  }

  it('keeps http and https absolute URLs', () => {
    assert.equal(
      parseReceiptUrl('http://127.0.0.1:8080/r.pdf?x=1').toString(),
      'http://127.0.0.1:8080/r.pdf?x=1',
    );
    assert.equal(
      parseReceiptUrl('HTTPS://Receipts.Example.TEST/a%20b.pdf').toString(),
      'https://receipts.example.test/a%20b.pdf',
    );
  });

  it('refuses userinfo (docs/decisions.md section 16: a secret would be stored and shown to operators)', () => {
    for (const text of [
      'http://user:secret@127.0.0.1:8080/r.pdf',
      'http://user@127.0.0.1/r.pdf',
      'http://:secret@127.0.0.1/r.pdf',
      'http://127.0.0.1:8080@127.0.0.2:9090/r.pdf',
      'https://a:b@shop.example/receipt.pdf',
    ]) {
      assert.throws(
        () => parseReceiptUrl(text),
        (err: unknown) => err instanceof AppError && err.code === 'RECEIPT_URL_INVALID',
        text,
      );
    }
  });

  it('normalises numeric host forms to the address that the guard checks', () => {
    for (const text of [
      'http://0x7f000002/',
      'http://2130706434/',
      'http://017700000002/',
      'http://127.2/',
    ]) {
      assert.equal(parseReceiptUrl(text).hostname, '127.0.0.2', text);
    }
    assert.equal(parseReceiptUrl('http://[::ffff:127.0.0.2]/').hostname, '[::ffff:7f00:2]');
  });
});
