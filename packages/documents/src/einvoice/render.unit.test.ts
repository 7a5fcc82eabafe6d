import type { EInvoiceFormat } from '@e-invoice-eu/core';
import { schemaFailures } from '../../../../tests/support/einvoice';
import { sampleDocument } from '../../test/fixtures';
import type { RenderableDocument } from '../model';
import { fixCii, renderCii, withCiiFixes } from './render';

const doc = { credited_invoice: { number: 'INV-1', issue_date: '2026-11-02' } } as RenderableDocument;
const writer = (fields: object) => fields as unknown as EInvoiceFormat;

describe('withCiiFixes', () => {
  test('a CII writer without its postProcess step fails loudly: a library upgrade must not silently drop the fixes', () => {
    expect(() => withCiiFixes(writer({}), 'CII', doc)).toThrow(/CII writer has no postProcess\(cii\) step any more/);
    expect(() => withCiiFixes(writer({ postProcess: 'gone' }), 'Factur-X-EN16931', doc)).toThrow(/postProcess/);
  });

  test("the library's own step runs, then the fixes", () => {
    const seen: string[] = [];
    const fixed = withCiiFixes(writer({ postProcess: () => seen.push('library') }), 'CII', doc) as EInvoiceFormat & {
      postProcess: (cii: object) => void;
    };
    const cii = {
      'rsm:CrossIndustryInvoice': {
        'rsm:SupplyChainTradeTransaction': { 'ram:ApplicableHeaderTradeSettlement': { 'ram:ActualAmount@currencyID': 'EUR' } },
      },
    };
    fixed.postProcess(cii);
    expect(seen).toEqual(['library']);
    expect(cii['rsm:CrossIndustryInvoice']['rsm:SupplyChainTradeTransaction']['ram:ApplicableHeaderTradeSettlement']).toEqual({
      'ram:InvoiceReferencedDocument': {
        'ram:IssuerAssignedID': 'INV-1',
        'ram:FormattedIssueDateTime': { 'qdt:DateTimeString': '20261102', 'qdt:DateTimeString@format': '102' },
      },
    });
  });

  test('the UBL writer has no such step and needs none', () => {
    const ubl = writer({ syntax: 'UBL' });
    expect(withCiiFixes(ubl, 'UBL', doc)).toBe(ubl);
  });
});

describe('fixCii', () => {
  const transaction = (cii: Record<string, any>) => cii['rsm:CrossIndustryInvoice']['rsm:SupplyChainTradeTransaction'];

  test('puts an empty header trade delivery between the agreement and the settlement, where CII D16B wants it', () => {
    const cii = {
      'rsm:CrossIndustryInvoice': {
        'rsm:SupplyChainTradeTransaction': {
          'ram:IncludedSupplyChainTradeLineItem': [{}],
          'ram:ApplicableHeaderTradeAgreement': { 'ram:BuyerReference': 'PO-7' },
          'ram:ApplicableHeaderTradeSettlement': { 'ram:InvoiceCurrencyCode': 'EUR' },
        },
      },
    };
    fixCii(cii, {});
    expect(Object.keys(transaction(cii))).toEqual([
      'ram:IncludedSupplyChainTradeLineItem',
      'ram:ApplicableHeaderTradeAgreement',
      'ram:ApplicableHeaderTradeDelivery',
      'ram:ApplicableHeaderTradeSettlement',
    ]);
    expect(transaction(cii)['ram:ApplicableHeaderTradeDelivery']).toEqual({});
    expect(transaction(cii)['ram:ApplicableHeaderTradeSettlement']).toEqual({ 'ram:InvoiceCurrencyCode': 'EUR' });
  });

  test('keeps a delivery the library wrote', () => {
    const delivery = { 'ram:ActualDeliverySupplyChainEvent': { 'ram:OccurrenceDateTime': {} } };
    const cii = {
      'rsm:CrossIndustryInvoice': {
        'rsm:SupplyChainTradeTransaction': {
          'ram:ApplicableHeaderTradeAgreement': {},
          'ram:ApplicableHeaderTradeDelivery': delivery,
          'ram:ApplicableHeaderTradeSettlement': {},
        },
      },
    };
    fixCii(cii, {});
    expect(transaction(cii)['ram:ApplicableHeaderTradeDelivery']).toBe(delivery);
  });
});

describe('the CII written', () => {
  test.each([
    ['an invoice', sampleDocument('invoice')],
    [
      'a credit note naming the invoice it credits',
      sampleDocument('credit_note', { credited_invoice: { number: 'INV-1', issue_date: '2026-11-01' } }),
    ],
  ])('for %s is valid against CII D16B and the Factur-X EN 16931 schema', async (_what, doc) => {
    const xml = await renderCii(doc);
    expect(xml).toMatch(
      /<\/ram:ApplicableHeaderTradeAgreement>\s*<ram:ApplicableHeaderTradeDelivery\/>\s*<ram:ApplicableHeaderTradeSettlement>/,
    );
    expect(await schemaFailures('cii', xml)).toBe('');
    expect(await schemaFailures('facturx', xml)).toBe('');
    if (doc.credited_invoice)
      expect(xml).toMatch(
        /<ram:InvoiceReferencedDocument>\s*<ram:IssuerAssignedID>INV-1<\/ram:IssuerAssignedID>\s*<ram:FormattedIssueDateTime>\s*<qdt:DateTimeString format="102">20261101<\/qdt:DateTimeString>/,
      );
  });
});
