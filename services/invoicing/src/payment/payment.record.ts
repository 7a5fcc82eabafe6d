import type { invoicing } from '@bo/contracts';
import { formatDate, formatDateTime, toNumber, type Dec } from '@bo/kernel';
import { unallocatedOf } from '../domain/cash';
import { dueOf, statusOf, type InvoiceRow } from '../invoice/invoice.record';

/** The rows of payments, their allocations and refunds as stored, and how replies show them. */

export interface PaymentRow {
  id: number;
  org_id: number;
  invoice_id: number | null;
  partner_id: number;
  direction: invoicing.PaymentDirection;
  amount: string;
  currency: string | null;
  payment_date: string;
  method: string | null;
  reference: string | null;
  journal: string;
  status: 'posted' | 'voided';
  /** The rate it was posted at (accounting currency per unit); null: posted as it is. */
  exchange_rate: string | null;
  /** Its amount's worth in the accounting currency, as its bank line booked it. */
  accounting_amount: string;
  allocated: string;
  refunded: string;
  journal_entry_id: number;
  void_journal_entry_id: number | null;
  void_reason: string | null;
  voided_at: Date | null;
  created_at: Date;
}

export interface AllocationRow {
  id: number;
  org_id: number;
  payment_id: number | null;
  credit_note_id: number | null;
  invoice_id: number;
  amount: string;
  allocation_date: string;
  status: 'active' | 'voided';
  journal_entry_id: number | null;
}

/** An allocation as booked: with its own entry's trade move when it posted one (an allocation made by its payment's entry has none). */
export type BookedAllocation = AllocationRow & { trade_delta?: Dec };

export interface RefundRow {
  id: number;
  org_id: number;
  partner_id: number;
  payment_id: number | null;
  credit_note_id: number | null;
  direction: invoicing.PaymentDirection;
  amount: string;
  currency: string | null;
  /** The rate its money was paid out at (accounting currency per unit); null: as it is. */
  exchange_rate: string | null;
  /** What the money paid out was worth in the accounting currency: its bank line. */
  accounting_amount: string;
  refund_date: string;
  method: string | null;
  reference: string | null;
  journal: string;
  journal_entry_id: number;
}

/** A payment as replies show it, with its allocations (each with its document's number) and refunds. */
export function toPaymentRecord(
  p: PaymentRow,
  allocations: ReadonlyArray<AllocationRow & { invoicenumber: string }>,
  refunds: readonly RefundRow[],
): invoicing.PaymentRecord {
  return {
    id: p.id,
    partner: p.partner_id,
    direction: p.direction,
    amount: toNumber(p.amount),
    currency: p.currency,
    payment_date: formatDate(p.payment_date) as string,
    method: p.method,
    reference: p.reference,
    journal: p.journal,
    status: p.status,
    exchange_rate: p.exchange_rate === null ? null : toNumber(p.exchange_rate),
    accounting_amount: toNumber(p.accounting_amount),
    allocated: toNumber(p.allocated),
    refunded: toNumber(p.refunded),
    // A voided payment gives no credit.
    unallocated: p.status === 'voided' ? 0 : toNumber(unallocatedOf(p)),
    journal_entry_id: p.journal_entry_id,
    void_journal_entry_id: p.void_journal_entry_id,
    void_reason: p.void_reason,
    voided_at: formatDateTime(p.voided_at),
    allocations: allocations.map(allocationRecord),
    refunds: refunds.map(refundRecord),
    created_at: formatDateTime(p.created_at) as string,
  };
}

export function allocationRecord(a: AllocationRow & { invoicenumber: string }): invoicing.AllocationRecord {
  return {
    id: a.id,
    source: a.payment_id !== null ? 'payment' : 'credit_note',
    payment_id: a.payment_id,
    credit_note_id: a.credit_note_id,
    invoice_id: a.invoice_id,
    invoicenumber: a.invoicenumber,
    amount: toNumber(a.amount),
    allocation_date: formatDate(a.allocation_date) as string,
    status: a.status,
    journal_entry_id: a.journal_entry_id,
  };
}

export function refundRecord(r: RefundRow): invoicing.RefundRecord {
  return {
    id: r.id,
    source: r.payment_id !== null ? 'payment' : 'credit_note',
    payment_id: r.payment_id,
    credit_note_id: r.credit_note_id,
    partner: r.partner_id,
    amount: toNumber(r.amount),
    currency: r.currency,
    exchange_rate: r.exchange_rate === null ? null : toNumber(r.exchange_rate),
    accounting_amount: toNumber(r.accounting_amount),
    refund_date: formatDate(r.refund_date) as string,
    method: r.method,
    reference: r.reference,
    journal: r.journal,
    journal_entry_id: r.journal_entry_id,
  };
}

/** A document's cash figures as cash replies show them. */
export function settledView(row: InvoiceRow, today: string): SettledDocument {
  return {
    id: row.id,
    invoicenumber: row.invoicenumber,
    invoicetype: row.invoicetype,
    invoicestatus: statusOf(row, today),
    invoicetotal: toNumber(row.invoicetotal),
    amount_paid: toNumber(row.amount_paid),
    due_amount: dueOf(row),
  };
}
export type SettledDocument = {
  id: number;
  invoicenumber: string;
  invoicetype: invoicing.InvoiceType;
  invoicestatus: invoicing.InvoiceStatus;
  invoicetotal: number;
  amount_paid: number;
  due_amount: number;
};
