import type { EInvoiceFormat } from '@e-invoice-eu/core';
import type { RenderableDocument } from '../model';
import { withCiiFixes } from './render';

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
