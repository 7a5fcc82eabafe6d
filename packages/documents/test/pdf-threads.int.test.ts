import { drawDocumentPdf, drawStatementPdf, renderPdf, renderStatementPdf, type StatementDocument } from '../src';
import { sampleDocument, taxedDocument, tinyLogo } from './fixtures';

/**
 * PDFs drawn on the PDF threads (src/pdf/pool.ts, the built dist/pdf/pdf-thread.js) are the bytes the
 * calling thread draws, logo and warnings included, and many at once each get their own.
 */
describe('PDFs drawn off the event loop', () => {
  const statement: StatementDocument = {
    partner: 7,
    partnername: 'Acme Ltd',
    side: 'customer',
    date_from: '2026-01-01',
    date_to: '2026-01-31',
    currency: 'EUR',
    opening_balance: 10,
    lines: [
      {
        date: '2026-01-05',
        kind: 'invoice',
        reference: 'INV-000001',
        debit: 100,
        credit: 0,
        balance: 110,
      },
    ],
    closing_balance: 110,
  };

  it('draws a document with its logo to the same bytes as the calling thread', async () => {
    const doc = sampleDocument('invoice', { logo_png: tinyLogo });
    expect(Buffer.compare(await drawDocumentPdf(doc), await renderPdf(doc))).toBe(0);
  });

  it('draws a document whose taxes are the kernel decimals to the same bytes', async () => {
    const doc = taxedDocument('invoice', {
      currency: 'KWD',
      lines: [
        {
          name: 'Oud',
          unit: 'piece',
          quantity: '3',
          price: '12.345',
          discount: '0',
          tax_rate: '5',
          tax_included: false,
          tax_category: 'S',
        },
        { name: 'Dates', unit: 'kg', quantity: '1.25', price: '4.1', discount: '0', tax_rate: '0', tax_included: true, tax_category: 'Z' },
      ],
    });
    expect(Buffer.compare(await drawDocumentPdf(doc), await renderPdf(doc))).toBe(0);
  });

  it("passes the thread's warnings to the caller", async () => {
    const warnings: string[] = [];
    const pdf = await drawDocumentPdf(sampleDocument('invoice', { logo_png: Buffer.from('not a png') }), {
      warn: (m) => warnings.push(m),
    });
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    expect(warnings).toEqual([expect.stringMatching(/logo is left out of/)]);
  });

  it('draws statements, many at once, each its own', async () => {
    const asked = [1, 2, 3, 4, 5].map((n) => ({ ...statement, partner: n, partnername: `Partner ${n}` }));
    const drawn = await Promise.all(asked.map((s) => drawStatementPdf(s)));
    const expected = await Promise.all(asked.map((s) => renderStatementPdf(s)));
    expect(drawn.map((pdf, i) => Buffer.compare(pdf, expected[i]!))).toEqual([0, 0, 0, 0, 0]);
    expect(new Set(drawn.map((pdf) => pdf.toString('base64'))).size).toBe(5);
  });
});
