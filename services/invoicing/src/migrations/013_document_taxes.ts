import type { Migration } from '@bo/runtime';
import { addDocumentTaxColumns } from '@bo/billing';

export const migration: Migration = {
  // Documents carry their taxes (docs/invoicing.md, "Taxes and rounding"), as quotations do (sales 009).
  name: '013_document_taxes',
  async up(trx, schema) {
    await addDocumentTaxColumns(trx, schema, {
      documents: 'invoices',
      lines: 'invoice_lines',
      documentKey: 'invoice_id',
      total: 'invoicetotal',
      exchangeRateScale: 8,
    });
  },
};
