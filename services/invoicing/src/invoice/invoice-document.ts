import type { invoicing } from '@bo/contracts';
import { accountingCurrency, documentLines, type DocumentKind, type DocumentPartiesView, type RenderableDocument } from '@bo/documents';
import { dec, formatDate, formatDateTime, sum, type TaxDocument } from '@bo/kernel';
import { documentAccounting, storedDocumentTaxes, storedTaxContext } from '@bo/billing';
import type { InvoiceRow, LineRow } from './invoice.record';
import { isIssued } from './issued-snapshot';
import { invoiceTaxInput } from './taxes';

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
  const taxes = asIssued(
    invoice,
    storedDocumentTaxes(invoiceTaxInput(invoice, lines, storedTaxContext(invoice)), `Invoice ${invoice.invoicenumber}`),
  );
  const conversion = documentAccounting(parties.currency || null, accounting.currency, accounting.exchange_rate);
  return {
    kind,
    number: invoice.invoicenumber,
    payment_reference: invoice.payment_reference,
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

/**
 * An issued invoice states the VAT it was issued and posted with: the breakdown and VAT total stored
 * at validation, which its journal entry holds, where the kernel's reading of its rows now differs
 * (an invoice issued under `line` rounding before a category's VAT was its rows' sum: a cent between
 * BT-117 and BT-114). The bases, lines and amount due are the same either way.
 */
function asIssued(invoice: InvoiceRow, doc: TaxDocument): TaxDocument {
  const stored = invoice.tax_breakdown;
  if (!isIssued(invoice) || !Array.isArray(stored) || stored.length !== doc.breakdown.length || invoice.vat_total == null) return doc;
  const same = doc.breakdown.every((b, i) => {
    const kept = stored[i];
    return (
      kept !== undefined &&
      kept.tax_category === b.tax_category &&
      dec(kept.tax_rate).eq(b.tax_rate) &&
      dec(kept.taxable_amount).eq(b.taxable_amount)
    );
  });
  if (!same) return doc;
  const breakdown = doc.breakdown.map((b, i) => ({ ...b, tax_amount: dec(stored[i]!.tax_amount) }));
  const taxTotal = sum(breakdown.map((b) => b.tax_amount));
  if (!taxTotal.eq(invoice.vat_total) || taxTotal.eq(doc.totals.tax_total)) return doc;
  const inclusive = doc.totals.tax_exclusive_amount.plus(taxTotal);
  const roundingFromLines = doc.totals.payable_amount.minus(doc.totals.rounding_to_cash).minus(inclusive);
  return {
    ...doc,
    breakdown,
    totals: {
      ...doc.totals,
      tax_total: taxTotal,
      tax_inclusive_amount: inclusive,
      rounding_amount: doc.totals.payable_amount.minus(inclusive),
      rounding_from_lines: roundingFromLines,
    },
  };
}
