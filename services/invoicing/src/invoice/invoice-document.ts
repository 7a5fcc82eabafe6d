import type { invoicing } from '@bo/contracts';
import {
  documentLines,
  organizationLogo,
  organizationParty,
  partnerParty,
  type DocumentKind,
  type Party,
  type RenderableDocument,
} from '@bo/documents';
import { formatDate, formatDateTime, type DocumentParties } from '@bo/runtime';
import type { InvoiceRow, LineRow } from './invoice.record';

/**
 * Invoice types as documents: what the organization issues (invoiceout, creditout) has it as the
 * seller; what vendors sent it (invoicein, creditin) has the vendor as the seller and the
 * organization as the buyer, so a vendor bill's e-invoice reads like the one the vendor sent.
 */
const kinds: Record<invoicing.InvoiceType, DocumentKind> = {
  invoiceout: 'invoice',
  creditout: 'credit_note',
  invoicein: 'vendor_bill',
  creditin: 'vendor_credit_note',
};

export interface InvoiceDocumentInput {
  invoice: InvoiceRow;
  lines: readonly LineRow[];
  parties: DocumentParties;
  /** The partner's name from the read model, for a partner the partners service no longer has. */
  partnerName: string | null;
  /** The invoice a credit note credits: its checked link (credits_invoice_id), never the client's free text. */
  credited: { number: string; issue_date: string | null } | null;
}

export function invoiceDocument({ invoice, lines, parties, partnerName, credited }: InvoiceDocumentInput): RenderableDocument {
  const kind = invoice.invoicetype === 'invoiceout' && invoice.invoicestatus === 'proforma' ? 'proforma' : kinds[invoice.invoicetype];
  const org = organizationParty(parties.organization);
  const partner: Party = parties.partner
    ? partnerParty(parties.partner)
    : { name: partnerName ?? `Partner ${invoice.partner_id}`, deleted: true };
  const issued = invoice.invoicetype === 'invoiceout' || invoice.invoicetype === 'creditout';
  const profile = parties.organization;
  return {
    kind,
    number: invoice.invoicenumber,
    draft: invoice.invoicestatus === 'draft',
    cancelled: invoice.invoicestatus === 'cancelled',
    issue_date: (formatDateTime(invoice.invoicedatetime) as string).slice(0, 10),
    due_date: formatDate(invoice.invoicedue),
    currency: parties.partner?.currency ?? profile.default_currency ?? '',
    payment_terms: invoice.invoiceterms,
    notes: invoice.comments,
    reference: invoice.invoicereference,
    credited_invoice: credited,
    seller: issued ? org : partner,
    buyer: issued ? partner : org,
    lines: documentLines(lines),
    totals: { subtotal: invoice.subtotal, tax_amount: invoice.tax_amount, total: invoice.invoicetotal },
    amount_paid: invoice.amount_paid,
    // Only an invoice the organization issues is paid into its account. On its credit notes it owes
    // the customer; on vendor bills the payee is the vendor, whose account is not known here.
    payment_account:
      invoice.invoicetype === 'invoiceout' && profile.iban ? { iban: profile.iban, bic: profile.bic, name: profile.legal_name } : null,
    logo_png: organizationLogo(profile),
  };
}
