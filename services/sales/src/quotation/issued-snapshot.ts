import type { DocumentPartiesView } from '@bo/documents';
import { type HandlerContext, type Knex } from '@bo/runtime';
import { currentParties, freezeParties, frozenParties } from '@bo/billing';
import { quotationParties } from './quotation-document';
import type { QuotationRow } from './quotation.record';

/**
 * A quotation is issued once it is no longer a draft: sent to the customer, accepted, converted,
 * cancelled or expired. Its parties are frozen when it is sent (and dropped if it goes back to
 * draft); one that left draft another way (converted or cancelled as a draft, or sent before parties
 * were frozen) freezes them at its first render. docs/sales.md, "Sent quotations never change".
 */
export function isIssued(q: Pick<QuotationRow, 'status'>): boolean {
  return q.status !== 'draft';
}

/** The quotation's parties as they are now, asked of the partners service: call it with no transaction open. */
export async function partiesNow(ctx: HandlerContext, q: Pick<QuotationRow, 'quotation_type' | 'partner_id' | 'currency'>) {
  const current = await currentParties(ctx, q.partner_id);
  return quotationParties(q, current.records, current.partnerName);
}

/**
 * Freezes the parties, the currency and the organization's accounting currency on the quotation
 * unless it holds frozen ones; answers what it holds.
 */
export async function freezeQuotationParties(
  trx: Knex.Transaction,
  q: Pick<QuotationRow, 'org_id' | 'id'>,
  parties: DocumentPartiesView,
  accountingCurrency: string | null,
): Promise<{ parties: DocumentPartiesView; accounting_currency: string | null }> {
  const held = await freezeParties(trx, 'quotations', q, parties, { accounting_currency: accountingCurrency });
  const row = await trx('quotations')
    .select('accounting_currency')
    .where({ org_id: q.org_id, id: q.id })
    .first<Pick<QuotationRow, 'accounting_currency'>>();
  return { parties: held, accounting_currency: row.accounting_currency };
}

/** The parties the quotation froze; null when it froze none. */
export function issuedParties(db: Knex, q: Pick<QuotationRow, 'org_id' | 'issued_parties'>): Promise<DocumentPartiesView | null> {
  return frozenParties<DocumentPartiesView>(db, q.org_id, q.issued_parties);
}
