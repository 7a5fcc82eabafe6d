import { notFound, type Knex } from '@bo/runtime';
import { weighBalances, type CurrencyBalanceRow, type WeighedBalance } from '../ledger/currency-balances';
import type { PartnerRow } from './partner.record';

/** A live partner of the organization, optionally locked for update; another org's partner is not found. */
export async function findLivePartner(db: Knex, orgId: number, partnerId: number, opts: { lock?: boolean } = {}): Promise<PartnerRow> {
  const query = db<PartnerRow>('partners').where({ org_id: orgId, id: partnerId }).whereNull('deleted_at').first();
  const row = await (opts.lock ? query.forUpdate() : query);
  if (!row) throw notFound('Partner', partnerId);
  return row;
}

/**
 * The partner's balances per currency and the organization's accounting currency, in one statement,
 * weighed in the partner's currency (weighBalances).
 */
export async function weighedBalanceOf(db: Knex, row: Pick<PartnerRow, 'org_id' | 'id' | 'currency'>): Promise<WeighedBalance> {
  const result: unknown = await db.raw(
    `select a.default_currency as accounting, b.currency, b.balance, b.receivable, b.committed, b.documents_total, b.documents_accounting,
            b.booked_balance, b.booked_receivable, b.booked_face_balance, b.booked_face_receivable
       from (select ?::int as org_id) k
       left join organization_profiles a on a.org_id = k.org_id
       left join partner_balances b on b.org_id = k.org_id and b.partner_id = ?`,
    [row.org_id, row.id],
  );
  const rows = (result as { rows: Array<CurrencyBalanceRow & { accounting: string | null; currency: string | null }> }).rows;
  const buckets = rows.filter((r): r is CurrencyBalanceRow & { accounting: string | null } => r.currency !== null);
  return weighBalances(buckets, row.currency, rows[0]?.accounting ?? null);
}

/** The partner's balance in each currency, as it is (partner_balances). */
export function balancesOf(db: Knex, row: Pick<PartnerRow, 'org_id' | 'id'>) {
  return db('partner_balances')
    .where({ org_id: row.org_id, partner_id: row.id })
    .orderBy('currency')
    .select<Array<{ currency: string; balance: string }>>('currency', 'balance');
}
