import type { invoicing } from '@bo/contracts';

type InvoiceStatus = invoicing.InvoiceStatus;
/** What is stored: `overdue` is never stored, it is how an open invoice past its due date reads. */
export type StoredStatus = Exclude<InvoiceStatus, 'overdue'>;

/** Overdue is computed at read time so it is true the moment the due date passes, with no job. */
export function effectiveStatus(status: StoredStatus, invoicedue: string | null, today: string): InvoiceStatus {
  return status === 'open' && invoicedue !== null && invoicedue < today ? 'overdue' : status;
}

const EDITABLE: readonly StoredStatus[] = ['draft', 'proforma'];

export function isEditable(status: StoredStatus): boolean {
  return EDITABLE.includes(status);
}

/** Why an invoice in this status cannot be cancelled, or null when it can. */
export function cancelRefusal(status: InvoiceStatus): string | null {
  if (status === 'draft' || status === 'proforma') return null;
  if (status === 'cancelled') return 'it is already cancelled';
  if (status === 'paid') return 'it is paid; issue a credit note instead';
  return `it is ${status} (posted); only draft or proforma invoices can be cancelled, issue a credit note instead`;
}

export function canTakePayment(status: InvoiceStatus): boolean {
  return status === 'open' || status === 'overdue';
}
