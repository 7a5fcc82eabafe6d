import type { Knex } from '@bo/runtime';
import { type CurrencyBalanceRow, type PartnerBalances } from './currency-balances';

/** A partner as its balances are weighed: its id, organization and currency. */
export interface WeighedPartner {
  id: number;
  org_id: number;
  currency: string | null;
}

/**
 * What weighing partners' balances needs, in one statement: each partner's currency, its balances per
 * currency (partner_balances) and its organization's accounting currency. Partners that do not exist
 * are left out.
 */
export async function loadPartnerBalances(db: Knex, ids: readonly number[]): Promise<PartnerBalances[]> {
  if (!ids.length) return [];
  const result: unknown = await db.raw(
    `select p.id as partner_id, p.currency as partner_currency, a.default_currency as accounting, b.currency, b.balance, b.receivable,
            b.committed, b.documents_total, b.documents_accounting, b.booked_balance, b.booked_receivable, b.booked_face_balance,
            b.booked_face_receivable
       from partners p
       left join organization_profiles a on a.org_id = p.org_id
       left join partner_balances b on b.org_id = p.org_id and b.partner_id = p.id
      where p.id = any(?::int[])
      order by p.id, b.currency`,
    [[...ids]],
  );
  return groupBalances((result as { rows: BalanceRow[] }).rows);
}

/** A partner_balances row beside its partner's currency and its organization's accounting currency (null currency: no row). */
export type BalanceRow = Omit<CurrencyBalanceRow, 'currency'> & {
  partner_id: number;
  partner_currency: string | null;
  accounting: string | null;
  currency: string | null;
};

/** Rows of partners' balances, ordered by partner, grouped into each partner's. */
export function groupBalances(rows: readonly BalanceRow[]): PartnerBalances[] {
  const byPartner = new Map<number, PartnerBalances>();
  for (const r of rows) {
    const p = byPartner.get(r.partner_id) ?? { partner_id: r.partner_id, currency: r.partner_currency, accounting: r.accounting, rows: [] };
    if (r.currency !== null) p.rows.push({ ...r, currency: r.currency });
    byPartner.set(r.partner_id, p);
  }
  return [...byPartner.values()];
}
