import { organizationLogo, organizationParty, partnerParty, type DocumentPartiesView as IssuedParties, type Party } from '@bo/documents';
import { type Knex } from '@bo/runtime';
import { freezeParties, frozenParties, type DocumentParties } from '@bo/billing';
import type { InvoiceRow } from './invoice.record';

/**
 * What an invoice shows of its parties (the seller and buyer, the account to pay into, the logo, the
 * currency): a draft or proforma as they are now; validation freezes them (docs/invoicing.md,
 * "Issued invoices never change"), so every later render of the invoice, in every format, is made
 * of the same data whatever is edited afterwards.
 */
export type { IssuedParties };

type PartiesOf = Pick<InvoiceRow, 'invoicetype' | 'partner_id' | 'currency'>;

/**
 * The parties of an invoice from the records the partners service holds now. What the organization
 * issues (invoiceout, creditout) has it as the seller; what vendors sent it (invoicein, creditin) has
 * the vendor as the seller and the organization as the buyer, so a vendor bill's e-invoice reads
 * like the one the vendor sent. `partnerName` is the read model's name, for a partner the partners
 * service no longer has. The currency is the invoice's own, stored when it was made; only an invoice
 * made when neither the partner nor the organization had one takes theirs now.
 */
export function invoiceParties(invoice: PartiesOf, parties: DocumentParties, partnerName: string | null): IssuedParties {
  const profile = parties.organization;
  const org = organizationParty(profile);
  const partner: Party = parties.partner
    ? partnerParty(parties.partner)
    : { name: partnerName ?? `Partner ${invoice.partner_id}`, deleted: true };
  const issued = invoice.invoicetype === 'invoiceout' || invoice.invoicetype === 'creditout';
  return {
    currency: invoice.currency ?? parties.partner?.currency ?? profile.default_currency ?? '',
    seller: issued ? org : partner,
    buyer: issued ? partner : org,
    // Only an invoice the organization issues is paid into its account. On its credit notes it owes
    // the customer; on vendor bills the payee is the vendor, whose account is not known here.
    payment_account:
      invoice.invoicetype === 'invoiceout' && profile.iban ? { iban: profile.iban, bic: profile.bic, name: profile.legal_name } : null,
    logo_png: organizationLogo(profile),
  };
}

/** A validated invoice, written off since or not: its parties are frozen. Drafts and proformas are not issued; a cancelled invoice never was. */
export function isIssued(invoice: Pick<InvoiceRow, 'invoicestatus'>): boolean {
  return invoice.invoicestatus === 'open' || invoice.invoicestatus === 'paid' || invoice.invoicestatus === 'written_off';
}

/**
 * Freezes the parties, the currency and the accounting currency on an invoice issued before
 * validation froze them, unless it holds frozen ones, and answers what it holds: its first render
 * calls it (the first of two such renders to write wins).
 */
export async function freezeIssuedParties(
  trx: Knex.Transaction,
  invoice: Pick<InvoiceRow, 'org_id' | 'id'>,
  parties: IssuedParties,
  accountingCurrency: string | null,
): Promise<{ parties: IssuedParties; accounting_currency: string | null }> {
  const held = await freezeParties(trx, 'invoices', invoice, parties, { accounting_currency: accountingCurrency });
  const row = await trx('invoices')
    .select('accounting_currency')
    .where({ org_id: invoice.org_id, id: invoice.id })
    .first<Pick<InvoiceRow, 'accounting_currency'>>();
  return { parties: held, accounting_currency: row.accounting_currency };
}

/** The parties the invoice froze; null when it froze none (not issued, or issued before parties were frozen). */
export function issuedParties(db: Knex, invoice: Pick<InvoiceRow, 'org_id' | 'issued_parties'>): Promise<IssuedParties | null> {
  return frozenParties<IssuedParties>(db, invoice.org_id, invoice.issued_parties);
}
