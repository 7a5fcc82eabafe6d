import { documentLines, refusalBody, sourceFieldNames } from './sources';
import { EInvoiceRefused } from './einvoice/render';

describe('sources', () => {
  test('missing fields are named as the user sets them: the organization issues invoices, vendors issue bills', () => {
    const missing = ['seller.vat_id', 'seller.name', 'buyer.country', 'buyer.vat_id', 'currency'];
    expect(sourceFieldNames(missing, 'organization')).toEqual([
      'organization.vat_id',
      'organization.legal_name',
      'partner.country',
      'partner.tax_number',
      'organization.default_currency',
    ]);
    expect(sourceFieldNames(missing, 'partner')).toEqual([
      'partner.tax_number',
      'partner.partnername',
      'organization.country',
      'organization.vat_id',
      'organization.default_currency',
    ]);
  });

  test('a refusal with missing data is a validation failure listing each field; one without is an invalid state', () => {
    const missing = refusalBody(new EInvoiceRefused('x', ['buyer.country']), 'invoice');
    expect(missing).toEqual({
      code: 'validation_failed',
      message: 'An e-invoice needs partner.country: set them on the organization profile or the partner',
      errors: [{ field: 'partner.country', message: 'partner.country is required for an e-invoice' }],
    });
    expect(refusalBody(new EInvoiceRefused('a draft is not an invoice yet'), 'invoice')).toEqual({
      code: 'invalid_state',
      message: 'No e-invoice: a draft is not an invoice yet',
    });
  });

  test('a deleted partner is named as deleted, not by the fields nobody can set on it any more', () => {
    const invoice = refusalBody(new EInvoiceRefused('x', [], 'buyer'), 'invoice');
    expect(invoice).toMatchObject({
      code: 'invalid_state',
      errors: [{ field: 'partner', message: expect.stringMatching(/partner is deleted.*PDF is still available/) }],
    });
    expect(invoice.message).toMatch(/^No e-invoice: the partner is deleted/);
    expect(JSON.stringify(invoice)).not.toMatch(/partner\.(country|email)/);
    // On a vendor bill the vendor is the seller: still the partner.
    expect(refusalBody(new EInvoiceRefused('x', [], 'seller'), 'vendor_bill').errors).toEqual([
      { field: 'partner', message: expect.any(String) },
    ]);
  });

  test('characters the fonts cannot draw refuse Factur-X naming each field as the user sets it', () => {
    const body = refusalBody(
      new EInvoiceRefused('x', [], undefined, [
        { field: 'buyer.name', characters: ['株'] },
        { field: 'lines[0].name', characters: ['茶'] },
      ]),
      'invoice',
    );
    expect(body.code).toBe('validation_failed');
    expect(body.message).toMatch(
      /^Factur-X is PDF\/A, which cannot show characters its fonts lack: partner\.partnername, lines\[0\]\.name hold some/,
    );
    expect(body.errors).toEqual([
      {
        field: 'partner.partnername',
        message: "partner.partnername holds characters the PDF's fonts cannot draw (株), which PDF/A forbids",
      },
      { field: 'lines[0].name', message: "lines[0].name holds characters the PDF's fonts cannot draw (茶), which PDF/A forbids" },
    ]);
  });

  test('stored lines keep their snapshot; a line without one is named by its description or product', () => {
    const stored = {
      product_id: '7',
      sku: null,
      uom: null,
      quantity: '1',
      price: '1',
      discount: '0',
      tax_rate: '0',
      tax_included: false,
      subtotal: '1',
      tax_amount: '0',
      total: '1',
    };
    const [a, b, c] = documentLines([
      { ...stored, product_name: 'Widget', description: 'blue' },
      { ...stored, product_name: null, description: 'Old line' },
      { ...stored, product_name: null, description: null },
    ]);
    expect([a?.name, a?.description, b?.name, b?.description, c?.name]).toEqual(['Widget', 'blue', 'Old line', null, 'Product 7']);
  });
});
