import { resolveOperation } from './catalogue';
import { parseWith } from './validation';
import { renderInvoice } from './invoicing/render';
import { renderQuotation } from './sales/render';

const picked = (path: string, body: Record<string, unknown>) => {
  const r = resolveOperation(path, body);
  return r.kind === 'operation' ? r.operation.name : r.kind;
};

describe('render operations', () => {
  test('a format on /invoicing/getinvoice asks for the file; without one the balances answer', () => {
    expect(picked('/invoicing/getinvoice', { org_id: 1, id: 3, format: 'pdf' })).toBe('invoicing.invoice.render');
    expect(picked('/invoicing/getinvoice', { org_id: 1, id: 3, include_items: true })).toBe('invoicing.invoice.balances');
  });

  test('a format on /sales/orderdetail asks for the PDF even though it names the quotation, which alone reads it back', () => {
    expect(picked('/sales/orderdetail', { org_id: 1, quotation_id: 3, format: 'pdf' })).toBe('sales.quotation.render');
    expect(picked('/sales/orderdetail', { org_id: 1, quotation_id: 3 })).toBe('sales.quotation.get');
  });

  test('an unknown format is refused naming the choices; quotations have PDF only', () => {
    const invoice = parseWith(renderInvoice.request, { org_id: 1, id: 3, format: 'docx' });
    expect(invoice.ok ? [] : invoice.errors).toEqual([
      { field: 'format', message: 'format must be one of "pdf", "ubl", "cii", "facturx", "peppol"' },
    ]);
    expect(renderInvoice.request.safeParse({ org_id: 1, id: 3, format: 'facturx' }).success).toBe(true);
    const quotation = parseWith(renderQuotation.request, { org_id: 1, quotation_id: 3, format: 'ubl' });
    expect(quotation.ok ? [] : quotation.errors).toEqual([{ field: 'format', message: 'format must be one of "pdf"' }]);
  });
});
