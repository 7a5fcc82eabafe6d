import type { InvoiceRow } from './invoice.record';

/**
 * The row the cash specifications start from: INV-0007, an open customer invoice (partner 40) of
 * 121.00 EUR dated 1 November 2026 and due 1 December, 21.00 of it paid, at version 3.
 */
export const openInvoiceRow = (over: Partial<InvoiceRow> = {}): InvoiceRow =>
  ({
    id: 7,
    org_id: 1,
    invoicenumber: 'INV-0007',
    invoicetype: 'invoiceout',
    invoicestatus: 'open',
    partner_id: 40,
    invoicedatetime: new Date('2026-11-01T09:00:00Z'),
    invoicedue: '2026-12-01',
    invoicetotal: '121.00',
    amount_paid: '21.00',
    written_off_amount: '0.00',
    currency: 'EUR',
    exchange_rate: null,
    tradeaccount: null,
    chartofaccounts: null,
    invoicejournal: null,
    sourceid: null,
    sourcenumber: null,
    sourcetype: null,
    paid_at: null,
    version: 3,
    ...over,
  }) as unknown as InvoiceRow;
