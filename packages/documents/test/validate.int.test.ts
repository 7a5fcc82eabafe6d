import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readEInvoice, validateEInvoice, prepareEInvoiceRules } from '../src';

/**
 * The official rules at run time (src/einvoice/validate.ts) over official examples and corrupted
 * copies of them. The first run compiles the four rule sets (minutes on a busy machine); later runs
 * find them in the cache.
 */
const examples = join(__dirname, '..', '..', '..', 'tests', 'einvoice-examples');
const read = (file: string) => readFileSync(join(examples, file), 'utf8');

beforeAll(() => prepareEInvoiceRules(), 600_000);

async function report(xml: string) {
  const { invoice, syntax } = await readEInvoice(Buffer.from(xml));
  return validateEInvoice(syntax === 'ubl' ? 'ubl' : 'cii', xml, invoice.customization_id);
}

describe('validateEInvoice', () => {
  test.each(['ubl/ubl-tc434-example1.xml', 'cii/CII_example1.xml', 'ubl/ubl-tc434-creditnote1.xml'])('%s passes EN 16931', async (file) => {
    const r = await report(read(file));
    expect(r.rule_sets).toEqual([file.startsWith('cii') ? 'en16931-cii' : 'en16931-ubl']);
    expect(r.fatal).toEqual([]);
  });

  test.each(['peppol/base-example.xml', 'peppol/vat-category-E.xml'])('%s passes EN 16931 and Peppol BIS 3.0', async (file) => {
    const r = await report(read(file));
    expect(r.rule_sets).toEqual(['en16931-ubl', 'peppol-ubl']);
    expect(r.fatal).toEqual([]);
  });

  test('a UBL without its number (BT-1) fails BR-02, located', async () => {
    const r = await report(read('ubl/ubl-tc434-example1.xml').replace(/<cbc:ID>12115118<\/cbc:ID>/, ''));
    expect(r.fatal).toContainEqual({
      rule: 'BR-02',
      message: expect.stringContaining('BT-1'),
      location: expect.stringContaining('Invoice'),
    });
  });

  test('a CII whose amount due was changed fails BR-CO-16', async () => {
    const xml = read('cii/CII_example1.xml');
    const changed = xml.replace(
      /(<ram:DuePayableAmount>)([\d.]+)/,
      (_, tag: string, amount: string) => `${tag}${(Number(amount) + 1).toFixed(2)}`,
    );
    expect(changed).not.toBe(xml);
    expect((await report(changed)).fatal.map((f) => f.rule)).toContain('BR-CO-16');
  });

  test('a Peppol invoice without the buyer endpoint breaks a Peppol rule EN 16931 alone does not', async () => {
    const xml = read('peppol/base-example.xml');
    const changed = xml.replace(/(<cac:AccountingCustomerParty>\s*<cac:Party>\s*)<cbc:EndpointID[^>]*>[^<]*<\/cbc:EndpointID>/, '$1');
    expect(changed).not.toBe(xml);
    const r = await report(changed);
    expect(r.fatal.length).toBeGreaterThan(0);
    expect(r.fatal.every((f) => f.rule.startsWith('PEPPOL'))).toBe(true);
  });
});
