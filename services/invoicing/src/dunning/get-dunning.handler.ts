import { invoicing } from '@bo/contracts';
import { drawLetterPdf, organizationParty, partnerParty, type ReminderLetterDocument } from '@bo/documents';
import { currentParties } from '@bo/billing';
import { handler } from '@bo/runtime';
import { dunningRefusals } from './dunning-refusals';
import { findLetter, letterRecord } from './dunning.repository';

type Parties = Awaited<ReturnType<typeof currentParties>>;

function letterDocument(
  letter: ReminderLetterDocument['letter'] & { partner: number },
  paymentReference: string | null,
  parties: Parties,
): ReminderLetterDocument {
  const org = parties.records.organization;
  const partner = parties.records.partner;
  const sender = organizationParty(org);
  return {
    sender: { ...sender, name: sender.name || `Organization ${org.org_id}` },
    pay_to: { iban: org.iban, bic: org.bic },
    recipient: partner ? partnerParty(partner) : { name: parties.partnerName ?? `Partner ${letter.partner}` },
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
  if (!row) throw dunningRefusals.letterNotFound(req.id);
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
