import fc from 'fast-check';
import { EInvoiceRefused, missingForEInvoice, renderDocument, renderPeppol, type RenderableDocument } from '../src';
import { einvoiceFailures, fatalFailures, preparePeppolRules, prepareRules, schemaFailuresOfMany } from '../../../tests/support/einvoice';
import { sampleDocument } from './fixtures';
import { CATEGORIES, decided, documentArb } from './taxed-arbitraries';

/**
 * Peppol BIS Billing 3.0 documents (format `peppol`): the UBL with the Peppol customization and
 * profile ids, the parties' Peppol ids as their electronic addresses and the buyer reference. Every
 * document must pass the UBL XSD, EN 16931 and the Peppol rules without one fatal assert, whatever
 * its categories, allowances, charges, currency, rounding policy and kind.
 * FC_SEED=<seed> replays the random documents; a failure prints the seed and the smallest document.
 */
const SEED = Number(process.env.FC_SEED ?? Date.now() % 2_147_483_647);

beforeAll(() => {
  prepareRules();
  preparePeppolRules();
}, 600_000);

const SELLER_ID = '9935:IE6388047V';
const BUYER_ID = '9933:094259216';

/** A document with both Peppol ids (the Irish seller's and the Greek buyer's VAT numbers as EAS 9935 and 9933). */
const onPeppol = (doc: RenderableDocument): RenderableDocument => ({
  ...doc,
  seller: { ...doc.seller, peppol_id: SELLER_ID },
  buyer: { ...doc.buyer, peppol_id: BUYER_ID },
});

describe('a Peppol invoice and credit note', () => {
  test('state the Peppol ids, the parties as EndpointID with their scheme and the buyer reference, and pass every rule', async () => {
    const xml = await renderPeppol(onPeppol(sampleDocument('invoice')));
    expect(xml).toContain(
      '<cbc:CustomizationID>urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0</cbc:CustomizationID>',
    );
    expect(xml).toContain('<cbc:ProfileID>urn:fdc:peppol.eu:2017:poacc:billing:01:1.0</cbc:ProfileID>');
    expect(xml).toMatch(/<cac:AccountingSupplierParty>\s*<cac:Party>\s*<cbc:EndpointID schemeID="9935">IE6388047V<\/cbc:EndpointID>/);
    expect(xml).toMatch(/<cac:AccountingCustomerParty>\s*<cac:Party>\s*<cbc:EndpointID schemeID="9933">094259216<\/cbc:EndpointID>/);
    expect(xml).toContain('<cbc:BuyerReference>PO-7</cbc:BuyerReference>');
    expect(await einvoiceFailures('ubl', xml, { peppol: true })).toBe('');
  }, 60_000);

  test('a credit note is a UBL CreditNote naming the invoice it credits, and passes every rule', async () => {
    const doc = onPeppol(
      sampleDocument('credit_note', { number: 'CRN-7', credited_invoice: { number: 'INV-000042', issue_date: '2026-11-01' } }),
    );
    const xml = await renderPeppol(doc);
    expect(xml).toMatch(/<CreditNote\b/);
    expect(xml).toContain('<cbc:CreditNoteTypeCode>381</cbc:CreditNoteTypeCode>');
    expect(await einvoiceFailures('ubl', xml, { peppol: true })).toBe('');
  }, 60_000);

  test('the plain UBL is unchanged: EN 16931 customization, emails as addresses, and no Peppol document', async () => {
    const file = await renderDocument(onPeppol(sampleDocument('invoice')), 'ubl');
    const xml = file.content.toString('utf8');
    expect(xml).toContain('<cbc:CustomizationID>urn:cen.eu:en16931:2017</cbc:CustomizationID>');
    expect(xml).toContain('<cbc:EndpointID schemeID="EM">billing@acme.test</cbc:EndpointID>');
    expect(fatalFailures('peppol-ubl', xml)).toContain('PEPPOL-EN16931-CL008');
    const peppol = await renderDocument(onPeppol(sampleDocument('invoice')), 'peppol');
    expect(peppol).toMatchObject({ filename: 'INV-000042.peppol.xml', content_type: 'application/xml' });
  }, 60_000);

  test('without the Peppol ids and the buyer reference it is refused naming each; emails are not needed on Peppol', async () => {
    const doc = sampleDocument('invoice', { reference: null });
    const bare = { ...doc, seller: { ...doc.seller, email: null }, buyer: { ...doc.buyer, email: null } };
    expect(missingForEInvoice(bare, 'peppol')).toEqual(['seller.peppol_id', 'buyer.peppol_id', 'reference']);
    const refusal = await renderPeppol(bare).catch((err: unknown) => err);
    expect(refusal).toBeInstanceOf(EInvoiceRefused);
    expect((refusal as EInvoiceRefused).missing).toEqual(['seller.peppol_id', 'buyer.peppol_id', 'reference']);
    expect(missingForEInvoice(onPeppol(sampleDocument('invoice')), 'peppol')).toEqual([]);
  });
});

/** Documents checked against the EN 16931 and the Peppol rules per category: 9 x 5 = 45 a run. */
const PER_CATEGORY = Number(process.env.FC_RUNS ?? 5);

describe(`random taxed documents as Peppol pass the UBL XSD, EN 16931 and the Peppol rules (seed ${SEED})`, () => {
  test.each(CATEGORIES)(
    'documents with %s lines',
    async (category) => {
      let n = 0;
      const documents: Array<{ label: string; xml: string }> = [];
      try {
        await fc.assert(
          fc.asyncProperty(documentArb(category), async ({ kind, spec }) => {
            const taxed = decided(kind, spec, ++n);
            fc.pre(taxed !== null);
            const doc = onPeppol(
              kind === 'credit_note' ? { ...taxed, credited_invoice: { number: 'INV-1', issue_date: '2026-10-01' } } : taxed,
            );
            const xml = await renderPeppol(doc);
            expect(fatalFailures('ubl', xml)).toBe('');
            expect(fatalFailures('peppol-ubl', xml)).toBe('');
            const t = doc.taxes!;
            expect(xml).toContain(
              `<cbc:PayableAmount currencyID="${doc.currency}">${t.totals.payable_amount.toFixed(t.minor_unit)}</cbc:PayableAmount>`,
            );
            documents.push({ label: `${doc.number} ${JSON.stringify(spec)}`, xml });
          }),
          { seed: SEED, numRuns: PER_CATEGORY, endOnFailure: true },
        );
      } catch (err) {
        throw new Error(`seed ${SEED} (FC_SEED=${SEED} replays): ${String(err)}`, { cause: err });
      }
      const errors = await schemaFailuresOfMany(
        'ubl',
        documents.map((d) => d.xml),
      );
      expect(documents.flatMap((d, i) => (errors[i] ? [`seed ${SEED}, ${d.label}: ${errors[i]}`] : []))).toEqual([]);
    },
    300_000,
  );
});
