import { invoicing } from '@bo/contracts';
import { drawLetterPdf, type ReminderLetterDocument } from '@bo/documents';
import { currentParties } from '@bo/billing';
import { handler, notFound } from '@bo/runtime';
import { findLetter, letterRecord } from './dunning.repository';

type Parties = Awaited<ReturnType<typeof currentParties>>;

/** Address lines of a party: the structured ones where set, else the free-text address. */
function addressLines(p: {
  address_line1?: string | null;
  address_line2?: string | null;
  postal_code?: string | null;
  city?: string | null;
  country?: string | null;
  address?: string | null;
}): string[] {
  const structured = [p.address_line1, p.address_line2, [p.postal_code, p.city].filter(Boolean).join(' '), p.country].filter(
    (x): x is string => Boolean(x),
  );
  if (structured.length) return structured;
  return (p.address ?? '').split('\n').filter((x) => x.trim() !== '');
}

function letterDocument(
  letter: ReminderLetterDocument['letter'] & { partner: number },
  paymentReference: string | null,
  parties: Parties,
): ReminderLetterDocument {
  const org = parties.records.organization;
  const partner = parties.records.partner;
  return {
    sender: {
      name: org.legal_name ?? org.trading_name ?? `Organization ${org.org_id}`,
      address: addressLines(org),
      vat_id: org.vat_id,
      iban: org.iban,
      bic: org.bic,
      email: org.email,
    },
    recipient: {
      name: partner?.display_name || partner?.partnername || parties.partnerName || `Partner ${letter.partner}`,
      address: partner ? addressLines(partner) : [],
    },
    letter,
    payment_reference: paymentReference,
  };
}

/**
 * One letter: its record, or with `format: "pdf"` the letter as the customer receives it, drawn
 * with the organization's and the customer's names and addresses as the partners service has them now.
 */
export const dunningGetHandler = handler(invoicing.dunningGet, async (req, ctx) => {
  const row = await findLetter(ctx.db, ctx.orgId, req.id);
  if (!row) throw notFound('Letter', req.id);
  const letter = { ...letterRecord(row, row.invoicenumber), id: row.id };
  if (req.format !== 'pdf') return { message: 'Letter retrieved successfully', letter };
  const pdf = await drawLetterPdf(letterDocument(letter, row.payment_reference, await currentParties(ctx, row.partner_id)));
  return {
    message: `Letter ${row.id} rendered as PDF`,
    id: row.id,
    format: 'pdf' as const,
    filename: `reminder-${row.invoicenumber.replace(/[^A-Za-z0-9._-]+/g, '_')}-level-${row.level}.pdf`,
    content_type: 'application/pdf' as const,
    content_base64: pdf.toString('base64'),
  };
});
