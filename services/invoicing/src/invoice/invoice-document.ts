import type { invoicing } from '@bo/contracts';
import { accountingCurrency, documentLines, type DocumentKind, type DocumentPartiesView, type RenderableDocument } from '@bo/documents';
import { formatDate, formatDateTime } from '@bo/kernel';
import { documentAccounting, storedDocumentTaxes } from '@bo/runtime';
import type { InvoiceRow, LineRow } from './invoice.record';
import { invoiceTaxInput, storedTaxContext } from './taxes';

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
  /**
   * The organization's accounting currency (frozen with the parties of an issued invoice, as it is
   * now on a draft) and the rate the invoice is converted at (its own, else the organization's table
   * rate on its date); either null: the document states its VAT in its own currency only.
   */
  accounting: { currency: string | null; exchange_rate: string | null };
}

/**
 * An invoice as a document: its stored rows, with the taxes the kernel decides on them with the
 * policy they were stored with (the one mapping, invoiceTaxInput), so every format states exactly
 * the breakdown, allowances, charges and totals the invoice's answer and journal hold. Payments are
 * no part of it (nothing prepaid, the whole total due): they go on statements and receipts.
 */
export function invoiceDocument({ invoice, lines, parties, credited, accounting }: InvoiceDocumentInput): RenderableDocument {
  const kind = invoice.invoicetype === 'invoiceout' && invoice.invoicestatus === 'proforma' ? 'proforma' : kinds[invoice.invoicetype];
  const taxes = storedDocumentTaxes(invoiceTaxInput(invoice, lines, storedTaxContext(invoice)), `Invoice ${invoice.invoicenumber}`);
  const conversion = documentAccounting(parties.currency || null, accounting.currency, accounting.exchange_rate);
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
    taxes,
    accounting: conversion && accountingCurrency(parties.currency, taxes.breakdown, conversion),
    ...parties,
  };
}
