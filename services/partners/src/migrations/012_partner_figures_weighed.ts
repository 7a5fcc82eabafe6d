import type { Migration } from '@bo/runtime';

/**
 * The decimals of ISO 4217 currencies other than two, as the list stood when migration 012 weighed
 * balances with them (a migration keeps its own copy: today's rule may change, history does not).
 */
const PLACES_012: Record<string, number> = {
  ...Object.fromEntries(
    ['BIF', 'CLP', 'DJF', 'GNF', 'ISK', 'JPY', 'KMF', 'KRW', 'PYG', 'RWF', 'UGX', 'UYI', 'VND', 'VUV', 'XAF', 'XOF', 'XPF'].map((c) => [
      c,
      0,
    ]),
  ),
  ...Object.fromEntries(['BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND'].map((c) => [c, 3])),
  CLF: 4,
  UYW: 4,
};

export const migration: Migration = {
  // A partner's own `balance`, `receivable` and `committed` (the list's and every record's) become
  // its balances weighed as the balance view weighs them (docs/partners.md "Currencies"), where they
  // had added the face amounts of every currency; the ledger keeps them so from now on
  // (ledger/currency-balances.ts decideRecordFigures), and this weighs once what it kept before,
  // by the rule as it stands here: per currency, what the journal told (`booked_*`) plus the untold
  // rest at the rate its documents were posted at (documents_accounting / documents_total), rounded
  // half-up to the accounting currency's minor unit; a currency with no such rate, or no currency,
  // as it is. For partners weighed in the accounting currency (no currency of their own, or that
  // one); one in another currency keeps its figures until its next ledger event weighs them. Only
  // figures that change are written.
  name: '012_partner_figures_weighed',
  async up(trx, schema) {
    const { rows } = await trx.raw<{ rows: Array<{ currency: string }> }>(
      `select distinct default_currency as currency from ??.organization_profiles where default_currency is not null`,
      [schema],
    );
    if (!rows.length) return;
    const weighed = (amount: string, booked: string, face: string) =>
      `case when ${amount} = 0 and ${booked} = 0 and ${face} = 0 then 0
              when w.currency = '' then ${amount}
              when ${booked} = 0 and ${face} = 0 then
                case when w.currency = w.accounting or w.rate is null then ${amount}
                     when w.rate = 0 then 0
                     else round(${amount} * w.rate, w.places) end
              when w.currency = w.accounting then ${booked} + (${amount} - ${face})
              when ${amount} - ${face} = 0 or w.rate = 0 then ${booked}
              when w.rate is null then ${amount}
              else ${booked} + round((${amount} - ${face}) * w.rate, w.places) end`;
    await trx.raw(
      `with w as (
           select b.*, o.default_currency as accounting, pl.places,
                  case when b.documents_total <> 0 then b.documents_accounting / b.documents_total end as rate
             from ??.partner_balances b
             join ??.partners p on p.org_id = b.org_id and p.id = b.partner_id
             join ??.organization_profiles o on o.org_id = b.org_id
             join unnest(?::text[], ?::int[]) as pl(currency, places) on pl.currency = o.default_currency
            where coalesce(p.currency, o.default_currency) = o.default_currency
         ),
         f as (
           select w.org_id, w.partner_id,
                  sum(${weighed('w.balance', 'w.booked_balance', 'w.booked_face_balance')}) as balance,
                  sum(${weighed('w.receivable', 'w.booked_receivable', 'w.booked_face_receivable')}) as receivable,
                  sum(${weighed('w.committed', '0', '0')}) as committed
             from w group by w.org_id, w.partner_id
         )
         update ??.partners p set balance = f.balance, receivable = f.receivable, committed = f.committed
           from f
          where p.org_id = f.org_id and p.id = f.partner_id
            and (p.balance, p.receivable, p.committed) is distinct from (f.balance, f.receivable, f.committed)`,
      [schema, schema, schema, rows.map((r) => r.currency), rows.map((r) => PLACES_012[r.currency] ?? 2), schema],
    );
  },
};
