import { toNumber } from '@bo/kernel';
import type { InvoiceRow } from '../invoice/invoice.record';
import type { BookedAllocation } from './payment.record';

/** The allocations as their events (`invoicing.payment.allocated`, `invoicing.payment.voided`) carry them. */
export function allocationEvents(rows: ReadonlyArray<BookedAllocation>, documents: ReadonlyMap<number, InvoiceRow>) {
  return rows.map((a) => {
    const doc = documents.get(a.invoice_id) as InvoiceRow;
    return {
      allocation_id: a.id,
      invoice_id: a.invoice_id,
      invoicenumber: doc.invoicenumber,
      invoicetype: doc.invoicetype,
      amount: toNumber(a.amount),
      // The documents map holds each row as settled (settle keeps it current).
      invoice_version: doc.version,
      ...(a.trade_delta !== undefined ? { trade_delta: toNumber(a.trade_delta) } : {}),
    };
  });
}
