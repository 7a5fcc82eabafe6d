import type { invoicing } from '@bo/contracts';

/** Number series per document type (spec 2.7), each gapless per organization. */
export const NUMBER_PREFIX: Record<invoicing.InvoiceType, string> = {
  invoiceout: 'INV-',
  creditout: 'CRN-',
  invoicein: 'BILL-',
  creditin: 'RFD-',
};
