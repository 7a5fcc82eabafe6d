import type { Migration } from '@bo/runtime';
import { addDocumentTaxColumns } from '@bo/billing';

export const migration: Migration = {
  // Quotations carry their taxes (docs/invoicing.md, "Taxes and rounding"), as invoices do (invoicing 013).
  name: '009_document_taxes',
  async up(trx, schema) {
    await addDocumentTaxColumns(trx, schema, {
      documents: 'quotations',
      lines: 'quotation_lines',
      documentKey: 'quotation_id',
      total: 'total',
      moreAmounts: { line: 'discount_amount', document: 'discount_total' },
      exchangeRateScale: 10,
    });
  },
};
