import type { invoicing } from '@bo/contracts';
import { minorUnit } from '@bo/kernel';
import { type Knex } from '@bo/runtime';
import { readSettings } from '@bo/billing';
import { loadHistory } from '../ledger/history';
import { Ledger } from '../ledger/ledger';
import { agedBalances } from '../ledger/views';
import { reportSnapshot } from './snapshot';

/** The organization's partners' names as this service's read model knows them. */
export async function partnerNames(db: Knex, orgId: number, ids?: number[]): Promise<Map<number, string>> {
  const rows = await db('partner_directory')
    .where({ org_id: orgId })
    .modify((q) => void (ids && q.whereIn('id', ids)))
    .select<Array<{ id: number; partnername: string }>>('id', 'partnername');
  return new Map(rows.map((r) => [r.id, r.partnername]));
}

/** Decimals of the accounting currency (2 when there is none on record). */
export const accountingPlaces = (currency: string | null) => (currency ? (minorUnit(currency) ?? 2) : 2);

/**
 * Aged receivables (the customer side) or payables (the vendor side) as of a day, default the
 * organization's today, from the ledger (ledger/ledger.ts) of the items that can be open that day
 * (history.ts `openOn`: those open now and those touched since), read in one snapshot.
 */
export async function agedReport(db: Knex, orgId: number, req: invoicing.AgedReportRequest): Promise<invoicing.AgedReportReply> {
  return reportSnapshot(db, async (trx) => {
    const settings = await readSettings(trx, orgId);
    const asOf = req.as_of ?? settings.today();
    const currency = settings.taxPolicy.accounting_currency;
    const ledger = new Ledger(await loadHistory(trx, orgId, { openOn: asOf }), accountingPlaces(currency));
    const side = req.report === 'aged_receivables' ? 'customer' : 'vendor';
    const { partners, totals } = agedBalances(ledger, side, asOf, await partnerNames(trx, orgId));
    const what = side === 'customer' ? 'receivables' : 'payables';
    return {
      message: partners.length ? `Aged ${what} as of ${asOf}` : `Nothing open in ${what} as of ${asOf}`,
      report: req.report,
      as_of: asOf,
      currency,
      partners,
      totals,
    };
  });
}
