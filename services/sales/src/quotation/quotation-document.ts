import type { sales } from '@bo/contracts';
import {
  accountingCurrency,
  documentLines,
  organizationLogo,
  organizationParty,
  partnerParty,
  type DocumentKind,
  type DocumentPartiesView,
  type RenderableDocument,
} from '@bo/documents';
import { formatDate, formatDateTime } from '@bo/kernel';
import { documentAccounting, storedDocumentTaxes, type DocumentParties } from '@bo/billing';
import type { LineRow, QuotationRow } from './quotation.record';
import { quotationTaxInput, storedTaxContext } from './taxes';

const kinds: Record<sales.QuotationType, DocumentKind> = { quotation: 'quotation', proforma: 'proforma', estimate: 'estimate' };

/**
 * The parties of a quotation from the records the partners service holds now: the organization
 * issues it to its customer. The currency is the quotation's own, stored when it was made; only one
 * made when neither the partner nor the organization had one takes theirs now.
 */
export function quotationParties(
  q: Pick<QuotationRow, 'quotation_type' | 'partner_id' | 'currency'>,
  parties: DocumentParties,
  partnerName: string | null,
): DocumentPartiesView {
  const profile = parties.organization;
  return {
    currency: q.currency ?? parties.partner?.currency ?? profile.default_currency ?? '',
    seller: organizationParty(profile),
    buyer: parties.partner ? partnerParty(parties.partner) : { name: partnerName ?? `Partner ${q.partner_id}` },
    // A proforma asks for payment in advance: it names the account to pay into.
    payment_account:
      q.quotation_type === 'proforma' && profile.iban ? { iban: profile.iban, bic: profile.bic, name: profile.legal_name } : null,
    logo_png: organizationLogo(profile),
  };
}

/**
 * A quotation, proforma or estimate as a document, with its parties as frozen when it was sent or as
 * they are now for a draft, and the taxes the kernel decides on its stored rows with the policy they
 * were stored with (the one mapping, quotationTaxInput). `accountingCurrency` is the organization's,
 * frozen with the parties of a sent quotation: with the quotation's own exchange rate, its VAT is
 * stated in that currency too (BT-6, BT-111).
 */
export function quotationDocument(
  q: QuotationRow,
  lines: readonly LineRow[],
  parties: DocumentPartiesView,
  accounting: string | null,
): RenderableDocument {
  const taxes = storedDocumentTaxes(quotationTaxInput(q, lines, storedTaxContext(q)), `Quotation ${q.quotation_number}`);
  const conversion = documentAccounting(parties.currency || null, accounting, q.exchange_rate);
  return {
    kind: kinds[q.quotation_type],
    number: q.quotation_number,
    draft: q.status === 'draft',
    cancelled: q.status === 'cancelled',
    issue_date: (formatDateTime(q.quotation_date) as string).slice(0, 10),
    valid_until: formatDate(q.valid_until),
    notes: q.comments,
    reference: q.quotation_reference,
    lines: documentLines(lines),
    totals: { subtotal: q.subtotal, tax_amount: q.tax_amount, total: q.total },
    taxes,
    accounting: conversion && accountingCurrency(parties.currency, taxes.breakdown, conversion),
    ...parties,
  };
}
