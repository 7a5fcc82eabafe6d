import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { documentTaxes, renderPdf } from '../src';
import { girocodeModules } from '../src/pdf/girocode';
import { invoiceGirocode } from '../src/pdf/render-pdf';
import { pdfPages, pdfText } from '../../../tests/support/pdf';
import { sampleDocument } from './fixtures';

// The GiroCode on a customer invoice's PDF (docs/bank.md): the payload states the seller's account,
// the amount due and the RF reference; the symbol on the page, drawn by poppler, is module for
// module the QR code of that payload.
const withReference = sampleDocument('invoice', { payment_reference: 'RF18539007547034', amount_paid: '10.00' });

const DPI = 288;
const MARGIN = 50;
const SIZE = 100;

/** The last page in grey levels, as pdftoppm draws it. */
function lastPageGrey(pdf: Uint8Array): { width: number; height: number; at: (x: number, y: number) => number } {
  const dir = mkdtempSync(join(tmpdir(), 'girocode-'));
  try {
    const file = join(dir, 'doc.pdf');
    writeFileSync(file, pdf);
    const page = String(pdfPages(pdf));
    execFileSync('pdftoppm', ['-gray', '-r', String(DPI), '-f', page, '-l', page, '-singlefile', file, join(dir, 'page')], {
      stdio: 'pipe',
    });
    const pgm = readFileSync(join(dir, 'page.pgm'));
    const header = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(pgm.subarray(0, 40).toString('latin1'))!;
    const [width, height, offset] = [Number(header[1]), Number(header[2]), header[0].length];
    return { width, height, at: (x, y) => pgm[offset + Math.round(y) * width + Math.round(x)]! };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('GiroCode on the invoice PDF', () => {
  it('states the seller, IBAN, BIC, the amount still due and the RF reference', () => {
    const payload = invoiceGirocode(withReference, documentTaxes(withReference))!;
    const total = Number(withReference.totals.total);
    expect(payload.split('\n')).toEqual([
      'BCD',
      '002',
      '1',
      'SCT',
      'AIBKIE2D',
      'Acme Ltd',
      'IE29AIBK93115212345678',
      `EUR${(total - 10).toFixed(2)}`,
      'GDSV',
      'RF18539007547034',
    ]);
  });

  it('is drawn on the page module for module', async () => {
    const payload = invoiceGirocode(withReference, documentTaxes(withReference))!;
    const symbol = girocodeModules(payload);
    const pdf = await renderPdf(withReference);
    expect(pdfText(pdf)).toContain('Scan with your banking app to pay (GiroCode, EPC069-12).');
    const page = lastPageGrey(pdf);
    const scale = DPI / 72;
    const module = (SIZE / (symbol.size + 8)) * scale;
    const left = (MARGIN + (4 * SIZE) / (symbol.size + 8)) * scale;
    // The symbol's bottom: from the page's foot up, the first row where the bottom-left finder
    // pattern's seven dark modules run unbroken (the logo at the top is dark there too).
    const finderRow = (y: number) => [0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5].every((c) => page.at(left + c * module, y) < 100);
    let bottom = page.height - 1;
    while (bottom > 0 && !finderRow(bottom)) bottom--;
    expect(bottom).toBeGreaterThan(0);
    const top = bottom + 1 - symbol.size * module;
    const drawn: boolean[][] = [];
    const expected: boolean[][] = [];
    for (let row = 0; row < symbol.size; row++) {
      drawn.push([]);
      expected.push([]);
      for (let col = 0; col < symbol.size; col++) {
        drawn[row]!.push(page.at(left + (col + 0.5) * module, top + (row + 0.5) * module) < 128);
        expected[row]!.push(symbol.dark(row, col));
      }
    }
    expect(drawn).toEqual(expected);
  });

  it('is not on a credit note, a draft, a document in another currency, or one without an IBAN', () => {
    for (const d of [
      sampleDocument('credit_note'),
      sampleDocument('invoice', { draft: true }),
      sampleDocument('invoice', { currency: 'USD' }),
      sampleDocument('invoice', { payment_account: null }),
      sampleDocument('invoice', { amount_paid: withReference.totals.total }),
    ]) {
      expect(invoiceGirocode(d, documentTaxes(d))).toBeNull();
    }
  });
});
