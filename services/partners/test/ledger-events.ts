/**
 * The data of the invoicing and sales events the partners ledger applies, as their producers
 * publish it, for one partner; only what a test is about is given.
 */
export const validatedData = (partnerId: number, invoiceId: number, invoicetype = 'invoiceout', invoicetotal = 100) => ({
  invoice_id: invoiceId,
  invoicenumber: `DOC-${invoiceId}`,
  invoicetype,
  partner_id: partnerId,
  invoicetotal,
  journal_entry_id: invoiceId,
  invoicedatetime: '2026-03-01T10:00:00',
  invoicedue: '2026-03-31',
  validated_at: '2026-03-01T10:00:00',
  sourcetype: null,
  sourceid: null,
  sourcenumber: null,
});

export const cancelledData = (partnerId: number, invoiceId: number, invoicetotal = 100) => ({
  ...validatedData(partnerId, invoiceId, 'invoiceout', invoicetotal),
  cancelled_at: '2026-03-02T00:00:00',
});

/** A payment of `amount` on the invoice (an `invoiceout` of 100 unless said). */
export const paymentData = (partnerId: number, invoiceId: number, paymentId: number, amount: number, invoicetotal = 100) => ({
  ...validatedData(partnerId, invoiceId, 'invoiceout', invoicetotal),
  payment_id: paymentId,
  amount,
  payment_date: '2026-03-05',
  journal: 'BANK',
  amount_paid: amount,
  due_amount: Math.max(0, invoicetotal - amount),
});

/** The quotation converted into invoice `invoiceId` (quotation id and number follow it), an `invoiceout` unless said. */
export const convertedData = (partnerId: number, invoiceId: number, total = 115, invoicetype = 'invoiceout') => ({
  quotation_id: invoiceId,
  quotation_number: `QUO-${invoiceId}`,
  invoice_id: invoiceId,
  invoicenumber: `INV-${invoiceId}`,
  invoicetype,
  partner_id: partnerId,
  subtotal: total,
  tax_amount: 0,
  quotation_total: total,
  converted_at: '2026-03-01T10:00:00',
});
