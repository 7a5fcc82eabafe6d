import { eInvoiceRefusal, missingForEInvoice } from './requirements';

const complete = {
  kind: 'invoice' as const,
  currency: 'EUR',
  draft: false,
  lines: [],
  seller: { name: 'Acme', country: 'IE', vat_id: 'IE1', email: 'a@acme.test' },
  buyer: { name: 'Client', country: 'GR', email: 'c@client.test' },
};

describe('e-invoice requirements', () => {
  test('a complete seller and buyer miss nothing', () => expect(missingForEInvoice(complete)).toEqual([]));

  test('blank fields count as missing, named by role', () => {
    expect(missingForEInvoice({ ...complete, seller: { name: ' ', country: null }, buyer: { name: 'B' } })).toEqual([
      'seller.name',
      'seller.country',
      'seller.vat_id',
      'seller.email',
      'buyer.country',
      'buyer.email',
    ]);
  });

  test('drafts, quotations and empty invoices are refused whatever the parties', () => {
    expect(eInvoiceRefusal({ ...complete, draft: true, lines: [{} as never] })).toMatch(/draft/);
    expect(eInvoiceRefusal({ ...complete, kind: 'quotation', lines: [{} as never] })).toMatch(/quotation is not an invoice/);
    expect(eInvoiceRefusal(complete)).toMatch(/without lines/);
    expect(eInvoiceRefusal({ ...complete, lines: [{} as never] })).toBeNull();
  });
});

test('a document without a currency cannot be an e-invoice', () => {
  expect(missingForEInvoice({ ...complete, currency: '' })).toEqual(['currency']);
});
