import type { sales } from '@bo/contracts';
import {
  documentLines,
  organizationLogo,
  organizationParty,
  partnerParty,
  type DocumentKind,
  type RenderableDocument,
} from '@bo/documents';
import { formatDate, formatDateTime, type DocumentParties } from '@bo/runtime';
import type { LineRow, QuotationRow } from './quotation.record';

const kinds: Record<sales.QuotationType, DocumentKind> = { quotation: 'quotation', proforma: 'proforma', estimate: 'estimate' };

/** A quotation, proforma or estimate as a document the organization issues to its customer. */
export function quotationDocument(
  q: QuotationRow,
  lines: readonly LineRow[],
  parties: DocumentParties,
  partnerName: string | null,
): RenderableDocument {
  const profile = parties.organization;
  return {
    kind: kinds[q.quotation_type],
    number: q.quotation_number,
    draft: q.status === 'draft',
    cancelled: q.status === 'cancelled',
    issue_date: (formatDateTime(q.quotation_date) as string).slice(0, 10),
    valid_until: formatDate(q.valid_until),
    currency: parties.partner?.currency ?? profile.default_currency ?? '',
    notes: q.comments,
    reference: q.quotation_reference,
    seller: organizationParty(profile),
    buyer: parties.partner ? partnerParty(parties.partner) : { name: partnerName ?? `Partner ${q.partner_id}` },
    lines: documentLines(lines),
    totals: { subtotal: q.subtotal, tax_amount: q.tax_amount, total: q.total },
    // A proforma asks for payment in advance: it names the account to pay into.
    payment_account:
      q.quotation_type === 'proforma' && profile.iban ? { iban: profile.iban, bic: profile.bic, name: profile.legal_name } : null,
    logo_png: organizationLogo(profile),
  };
}
