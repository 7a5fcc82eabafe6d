import type { invoicing } from '@bo/contracts';
import { documentLines, type DocumentKind, type DocumentPartiesView, type RenderableDocument } from '@bo/documents';
import { formatDate, formatDateTime } from '@bo/kernel';
import type { InvoiceRow, LineRow } from './invoice.record';

/** Invoice types as documents; who is the seller of each is decided with the parties (issued-snapshot.ts). */
const kinds: Record<invoicing.InvoiceType, DocumentKind> = {
  invoiceout: 'invoice',
  creditout: 'credit_note',
  invoicein: 'vendor_bill',
  creditin: 'vendor_credit_note',
};

export interface InvoiceDocumentInput {
  invoice: InvoiceRow;
  lines: readonly LineRow[];
  /** As frozen at validation, or as they are now for a draft or proforma (issued-snapshot.ts). */
  parties: DocumentPartiesView;
  /** The invoice a credit note credits: its checked link (credits_invoice_id), never the client's free text. */
  credited: { number: string; issue_date: string | null } | null;
}

export function invoiceDocument({ invoice, lines, parties, credited }: InvoiceDocumentInput): RenderableDocument {
  const kind = invoice.invoicetype === 'invoiceout' && invoice.invoicestatus === 'proforma' ? 'proforma' : kinds[invoice.invoicetype];
  return {
    kind,
    number: invoice.invoicenumber,
    draft: invoice.invoicestatus === 'draft',
    cancelled: invoice.invoicestatus === 'cancelled',
    issue_date: (formatDateTime(invoice.invoicedatetime) as string).slice(0, 10),
    due_date: formatDate(invoice.invoicedue),
    payment_terms: invoice.invoiceterms,
    notes: invoice.comments,
    reference: invoice.invoicereference,
    credited_invoice: credited,
    lines: documentLines(lines),
    totals: { subtotal: invoice.subtotal, tax_amount: invoice.tax_amount, total: invoice.invoicetotal },
    amount_paid: invoice.amount_paid,
    ...parties,
  };
}
