import type { invoicing } from '@bo/contracts';
import type { DocumentPartiesView } from '@bo/documents';
import { dec, formatDate, formatDateTime, lineFigures, toNumber, type StoredLine } from '@bo/kernel';
import { documentTaxFields, type DocumentTaxRow, type StoredParties } from '@bo/billing';
import { effectiveStatus, type StoredStatus } from '../domain/status';

export interface InvoiceRow extends DocumentTaxRow {
  id: number;
  org_id: number;
  invoicenumber: string;
  /** The ISO 11649 creditor reference of a customer invoice (kernel `invoicePaymentReference`), set at validation (migration 040). */
  payment_reference: string | null;
  invoicetype: invoicing.InvoiceType;
  partner_id: number;
  invoicestatus: StoredStatus;
  invoicedatetime: Date;
  invoicedue: string | null;
  comments: string | null;
  invoicereference: string | null;
  invoiceterms: string | null;
  subtotal: string;
  tax_amount: string;
  invoicetotal: string;
  amount_paid: string;
  /** What was written off as a bad debt (docs/invoicing.md, "Cash application"): no longer due. */
  written_off_amount: string;
  sourceid: string | null;
  sourcenumber: string | null;
  sourcetype: string | null;
  /** The conversion link, set by create_from_source alone (the client's source fields link nothing). */
  converted_from_quotation_id: number | null;
  /** The invoice a credit note credits, set once checked (docs/invoicing.md "Credit notes"). */
  credits_invoice_id: number | null;
  /** Whether a credit note returns its goods to stock (always true on other types). */
  restock: boolean;
  chartofaccounts: string | null;
  invoicejournal: string | null;
  tradeaccount: string | null;
  /** The parties frozen at validation (issued-snapshot.ts), the logo by its content address; null on drafts, proformas and cancelled invoices. */
  issued_parties: StoredParties<DocumentPartiesView> | null;
  /** The organization's accounting currency, frozen with the parties (migration 019); null beside frozen parties: it had none. */
  accounting_currency: string | null;
  created_by: string | null;
  recurring_enabled: boolean;
  recurring_frequency: invoicing.RecurringFrequency | null;
  recurring_start_date: string | null;
  recurring_next_run_date: string | null;
  recurring_next_index: number;
  recurring_occurrences: number;
  recurring_generated: number;
  recurring_status: invoicing.RecurringStatus | null;
  recurring_cancellation_reason: string | null;
  parent_id: number | null;
  run_date: string | null;
  created_at: Date;
  updated_at: Date;
  validated_at: Date | null;
  cancelled_at: Date | null;
  paid_at: Date | null;
  /** 1 when made, one more per transaction that changes the row (a trigger keeps it: migration 017); invoice events carry it. */
  version: number;
}

export interface LineRow extends StoredLine {
  id: number;
  tax_category: string;
  tax_exemption_reason: string | null;
  tax_exemption_code: string | null;
  reverse_charge_rate: string | null;
  /** The VAT as the line's document states it (a bill made by import, migration 056); null: computed. */
  stated_tax: string | null;
  org_id: number;
  invoice_id: number;
  /** False only for lines made before lines were checked against the catalog (migration 007): they move no stock. */
  catalog_checked: boolean;
}

export function dueOf(row: Pick<InvoiceRow, 'invoicetotal' | 'amount_paid'> & { written_off_amount?: string }): number {
  return toNumber(
    dec(row.invoicetotal)
      .minus(dec(row.amount_paid))
      .minus(dec(row.written_off_amount ?? 0)),
  );
}

export function statusOf(row: Pick<InvoiceRow, 'invoicestatus' | 'invoicedue'>, today: string): invoicing.InvoiceStatus {
  return effectiveStatus(row.invoicestatus, row.invoicedue, today);
}

export function toLineRecord(row: LineRow): invoicing.InvoiceLineRecord {
  return { id: row.id, invoiceid: row.invoice_id, ...lineFigures(row) };
}

export function toRecurringRecord(row: InvoiceRow): invoicing.RecurringRecord {
  return {
    enabled: row.recurring_enabled,
    is_parent: row.recurring_enabled,
    frequency: row.recurring_frequency,
    start_date: formatDate(row.recurring_start_date),
    next_run_date: formatDate(row.recurring_next_run_date),
    occurrences_count: row.recurring_occurrences,
    generated_count: row.recurring_generated,
    status: row.recurring_status,
    cancellation_reason: row.recurring_cancellation_reason,
    parent_id: row.parent_id,
  };
}

/** Spec 2.7 gives `userid` as an integer; user ids that are not numbers are passed on as sent. */
function userIdOut(id: string | null): number | string | null {
  if (id === null) return null;
  return /^\d{1,9}$/.test(id) ? Number(id) : id;
}

/**
 * The payment state of a document its own write just made (a draft, a proforma, a converted or a
 * generated invoice): nothing is paid on it and no payment file names it yet. Every read derives it
 * (paymentStateSql).
 */
export const NEW_DOCUMENT_PAYMENT_STATE: invoicing.PaymentState = 'not_paid';

/** The invoice record of a row and its lines; `paymentState` as its read derived it (paymentStateSql), or of a document just made. */
export function toInvoiceRecord(
  row: InvoiceRow,
  lines: LineRow[],
  today: string,
  paymentState: invoicing.PaymentState,
): invoicing.InvoiceRecord {
  return {
    id: row.id,
    orgid: row.org_id,
    partner: String(row.partner_id),
    invoicenumber: row.invoicenumber,
    payment_reference: row.payment_reference,
    invoicetype: row.invoicetype,
    userid: userIdOut(row.created_by),
    invoicestatus: statusOf(row, today),
    invoicedatetime: formatDateTime(row.invoicedatetime) as string,
    comments: row.comments,
    invoicereference: row.invoicereference,
    invoiceterms: row.invoiceterms,
    invoicedue: formatDate(row.invoicedue),
    subtotal: toNumber(row.subtotal),
    tax_amount: toNumber(row.tax_amount),
    invoicetotal: toNumber(row.invoicetotal),
    amount_paid: toNumber(row.amount_paid),
    due_amount: dueOf(row),
    payment_state: paymentState,
    sourceid: row.sourceid,
    sourcenumber: row.sourcenumber,
    sourcetype: row.sourcetype,
    chartofaccounts: row.chartofaccounts,
    invoicejournal: row.invoicejournal,
    tradeaccount: row.tradeaccount,
    restock: row.restock,
    ...documentTaxFields(row),
    recurring: toRecurringRecord(row),
    line_items: lines.map(toLineRecord),
    created_at: formatDateTime(row.created_at) as string,
    updated_at: formatDateTime(row.updated_at) as string,
  };
}

/** The fields every invoice event carries (see the event contracts). */
export function eventRef(row: InvoiceRow) {
  return {
    invoice_id: row.id,
    invoicenumber: row.invoicenumber,
    invoicetype: row.invoicetype,
    partner_id: row.partner_id,
    invoicetotal: toNumber(row.invoicetotal),
    sourcetype: row.sourcetype,
    sourceid: row.sourceid,
    sourcenumber: row.sourcenumber,
    version: row.version,
  };
}
