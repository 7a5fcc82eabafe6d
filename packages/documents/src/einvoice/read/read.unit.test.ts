import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { dec, sum } from '@bo/kernel';
import { sampleDocument } from '../../../test/fixtures';
import { renderPdf } from '../../pdf/render-pdf';
import { renderCii, renderFacturX, renderUbl } from '../render';
import { readEInvoice } from './read';
import type { ReceivedInvoice } from './model';

const examples = join(__dirname, '..', '..', '..', '..', '..', 'tests', 'einvoice-examples');
const files = ['ubl', 'cii', 'peppol'].flatMap((dir) =>
  readdirSync(join(examples, dir))
    .filter((f) => /\.xml$/i.test(f))
    .map((f) => `${dir}/${f}`),
);

/**
 * The sums EN 16931 requires a document's figures to satisfy (BR-CO-10, BR-CO-13, BR-CO-14,
 * BR-CO-15, BR-CO-16): each as `name: left != right`, empty when they all hold.
 */
function inconsistencies(inv: ReceivedInvoice): string[] {
  const t = inv.totals;
  const found: string[] = [];
  const check = (name: string, left: string | undefined, right: ReturnType<typeof dec>) => {
    if (left !== undefined && !dec(left).eq(right)) found.push(`${name}: ${left} != ${right.toString()}`);
  };
  const acs = (charge: boolean) => sum(inv.allowances_charges.filter((a) => a.charge === charge).map((a) => a.amount));
  check('BR-CO-10 BT-106 = Σ BT-131', t.line_extension, sum(inv.lines.map((l) => l.net_amount)));
  check('BR-CO-13 BT-109', t.tax_exclusive, dec(t.line_extension).minus(acs(false)).plus(acs(true)));
  check('BR-CO-14 BT-110 = Σ BT-117', t.tax, sum(inv.vat_breakdown.map((b) => b.tax_amount)));
  check('BR-CO-15 BT-112', t.tax_inclusive, dec(t.tax_exclusive).plus(dec(t.tax)));
  check('BR-CO-16 BT-115', t.payable, dec(t.tax_inclusive).minus(dec(t.prepaid)).plus(dec(t.rounding)));
  return found;
}

// CII-BR-CO-10-RoundingIssue.xml is the CEN's example of a sum that binary floating point gets wrong
// (XPath 2 sums of doubles); in exact decimals it holds, like every other example.
const NUMBER = /^-?\d+(\.\d*)?$/;
const CATEGORY = /^(S|Z|E|AE|K|G|O|L|M|B)$/;

describe('readEInvoice over every official example', () => {
  test.each(files)('%s reads into the model with its figures as the document states them', async (file) => {
    const bytes = readFileSync(join(examples, file));
    const { syntax, invoice, xml } = await readEInvoice(bytes);
    expect(syntax).toBe(file.startsWith('cii/') ? 'cii' : 'ubl');
    expect(xml.equals(bytes)).toBe(true);
    expect(invoice.number).toBeTruthy();
    expect(invoice.issue_date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(invoice.currency).toMatch(/^[A-Z]{3}$/);
    expect(invoice.seller.name).toBeTruthy();
    expect(invoice.lines.length).toBeGreaterThan(0);
    for (const l of invoice.lines) {
      expect(l.id).toBeTruthy();
      expect(l.quantity).toMatch(NUMBER);
      expect(l.net_amount).toMatch(NUMBER);
      expect(l.net_price).toMatch(NUMBER);
      expect(l.vat_category).toMatch(CATEGORY);
    }
    for (const b of invoice.vat_breakdown) expect(b.category).toMatch(CATEGORY);
    expect(invoice.totals.payable).toMatch(NUMBER);
    expect(inconsistencies(invoice)).toEqual([]);
  });

  test('UBL example 1 field by field', async () => {
    const { invoice } = await readEInvoice(readFileSync(join(examples, 'ubl/ubl-tc434-example1.xml')));
    expect(invoice).toMatchObject({
      kind: 'invoice',
      customization_id: 'urn:cen.eu:en16931:2017',
      number: '12115118',
      issue_date: '2015-01-09',
      due_date: '2015-01-09',
      type_code: '380',
      currency: 'EUR',
    });
    expect(invoice.seller.vat_id).toMatch(/^NL/);
    expect(invoice.lines[0]).toMatchObject({ id: '1', unit: expect.any(String) });
  });

  test('a UBL credit note is a credit note naming the invoice it corrects', async () => {
    const { invoice } = await readEInvoice(readFileSync(join(examples, 'ubl/ubl-tc434-creditnote1.xml')));
    expect(invoice.kind).toBe('credit_note');
    expect(invoice.type_code).toBe('381');
  });

  test('a Peppol document names its BIS 3.0 customization and endpoint ids with their schemes', async () => {
    const { invoice } = await readEInvoice(readFileSync(join(examples, 'peppol/base-example.xml')));
    expect(invoice.customization_id).toBe('urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0');
    expect(invoice.seller.endpoint_id).toEqual({ id: expect.any(String), scheme: expect.stringMatching(/^\d{4}$/) });
    expect(invoice.buyer.endpoint_id?.scheme).toMatch(/^\d{4}$/);
  });

  test('CII example: dates in YYYY-MM-DD, VAT id from the VA registration, the accounting currency VAT (BT-111)', async () => {
    const { invoice } = await readEInvoice(readFileSync(join(examples, 'cii/CII_example5.xml')));
    expect(invoice.syntax).toBe('cii');
    expect(invoice.tax_currency).toBeTruthy();
    expect(invoice.totals.tax_accounting).toEqual({ amount: expect.stringMatching(/^\d+(\.\d+)?$/), currency: invoice.tax_currency });
  });

  test('an XML that is not an invoice is refused as unsupported', async () => {
    await expect(readEInvoice(Buffer.from('<Order xmlns="urn:x"/>'))).rejects.toMatchObject({ reason: 'unsupported' });
  });
});

describe('readEInvoice over what this system issues', () => {
  test('UBL, CII and Factur-X of one invoice read to the same lines, VAT breakdown and totals', async () => {
    const doc = sampleDocument('invoice');
    const ubl = await readEInvoice(Buffer.from(await renderUbl(doc)));
    const cii = await readEInvoice(Buffer.from(await renderCii(doc)));
    const fx = await readEInvoice(await renderFacturX(doc, await renderPdf(doc)));
    expect([ubl.syntax, cii.syntax, fx.syntax]).toEqual(['ubl', 'cii', 'facturx']);
    const figures = (r: typeof ubl) => ({
      number: r.invoice.number,
      issue_date: r.invoice.issue_date,
      currency: r.invoice.currency,
      totals: Object.fromEntries(Object.entries(r.invoice.totals).map(([k, v]) => [k, typeof v === 'string' ? dec(v).toString() : v])),
      breakdown: r.invoice.vat_breakdown.map((b) => [
        b.category,
        dec(b.rate).toString(),
        dec(b.taxable_amount).toString(),
        dec(b.tax_amount).toString(),
      ]),
      lines: r.invoice.lines.map((l) => [
        l.quantity,
        l.unit,
        dec(l.net_price).toString(),
        dec(l.net_amount).toString(),
        l.vat_category,
        dec(l.vat_rate).toString(),
      ]),
    });
    expect(figures(ubl).number).toBe(doc.number);
    expect(figures(ubl).lines).toHaveLength(doc.lines.length);
    expect(figures(cii)).toEqual(figures(ubl));
    expect(figures(fx)).toEqual(figures(cii));
  });
});
