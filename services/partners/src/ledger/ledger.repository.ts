import type { PlannedStore, SqlStatement } from '@bo/runtime';
import type { LedgerKeys, LedgerPlan, LedgerState } from './ledger-decide';

/**
 * Everything a batch of the ledger decides on, as one statement answering one row (the inbox adds
 * which events it holds already): the partners named and those whose commitments it may release,
 * each with its version (`xmin`: the store updates each moved partner only as it was read), currency
 * and organization's accounting currency; their balances per currency; the commitments of the
 * invoices named; the sources named already posted. Amounts travel as text, never as JSON numbers.
 */
export function loadLedger(keys: LedgerKeys): SqlStatement {
  return {
    sql: `with named as (select * from unnest(?::int[], ?::int[]) as n(org_id, id)),
           invoices as (select * from unnest(?::int[], ?::int[]) as i(org_id, invoice_id)),
           sources as (select * from unnest(?::int[], ?::text[], ?::int[]) as s(org_id, source, source_id)),
           found as (select c.org_id, c.invoice_id, c.partner_id, c.quotation_id, c.quotation_number, c.amount::text as amount,
                            c.currency, c.status
                       from commitments c where (c.org_id, c.invoice_id) in (select org_id, invoice_id from invoices)),
           weighed as (select p.id, p.org_id, p.currency, o.default_currency as accounting, p.xmin::text as version
                         from partners p left join organization_profiles o on o.org_id = p.org_id
                        where (p.org_id, p.id) in (select org_id, id from named
                                                   union select org_id, partner_id from found where partner_id is not null))
         select (select coalesce(json_agg(w order by w.id), '[]') from weighed w) as partners,
                (select coalesce(json_agg(json_build_object(
                          'partner_id', b.partner_id, 'currency', b.currency, 'balance', b.balance::text, 'receivable', b.receivable::text,
                          'committed', b.committed::text, 'documents_total', b.documents_total::text,
                          'documents_accounting', b.documents_accounting::text, 'booked_balance', b.booked_balance::text,
                          'booked_receivable', b.booked_receivable::text, 'booked_face_balance', b.booked_face_balance::text,
                          'booked_face_receivable', b.booked_face_receivable::text)), '[]')
                   from partner_balances b join weighed w on b.org_id = w.org_id and b.partner_id = w.id) as balances,
                (select coalesce(json_agg(f), '[]') from found f) as commitments,
                (select coalesce(json_agg(json_build_object('org_id', t.org_id, 'source', t.source, 'source_id', t.source_id)), '[]')
                   from partner_transactions t
                  where (t.org_id, t.source, t.source_id) in (select org_id, source, source_id from sources)) as posted`,
    bindings: [
      keys.partners.map(([org]) => org),
      keys.partners.map(([, id]) => id),
      keys.invoices.map(([org]) => org),
      keys.invoices.map(([, invoice]) => invoice),
      keys.sources.map(([org]) => org),
      keys.sources.map(([, source]) => source),
      keys.sources.map(([, , id]) => id),
    ],
  };
}

/** The load's row as the decision reads it. */
export function ledgerState(loaded: Record<string, unknown>): LedgerState {
  return loaded as unknown as LedgerState;
}

/**
 * The plan's writes, each held to its count (PlannedStore): commitments made, commitments released
 * (open as the load read them), rows posted (their sources unposted), balances moved (added to the
 * rows as they stand), and each moved partner's record figures, written only over the version its
 * balances were weighed on. Any of them finding another instance's work since the load fails the
 * statement whole, and the batch is decided again. Rows go in key order, as every batch takes its locks.
 */
export function storeLedger(plan: LedgerPlan): PlannedStore {
  const writes: PlannedStore['writes'][number][] = [];
  const json = (rows: readonly unknown[]) => JSON.stringify(rows);
  if (plan.newCommitments.length)
    writes.push({
      sql: `insert into commitments (org_id, invoice_id, partner_id, quotation_id, quotation_number, amount, currency, status, released_at)
            select c.org_id, c.invoice_id, c.partner_id, c.quotation_id, c.quotation_number, c.amount, c.currency, c.status,
                   case when c.status = 'released' then now() end
              from jsonb_to_recordset(?::jsonb) as c(org_id int, invoice_id int, partner_id int, quotation_id int, quotation_number text,
                                                     amount numeric, currency text, status text)
             order by c.org_id, c.invoice_id
            on conflict (org_id, invoice_id) do nothing returning 1`,
      bindings: [json(plan.newCommitments)],
      rows: plan.newCommitments.length,
    });
  if (plan.released.length)
    writes.push({
      sql: `update commitments c set status = 'released', released_at = now()
              from unnest(?::int[], ?::int[]) as r(org_id, invoice_id)
             where c.org_id = r.org_id and c.invoice_id = r.invoice_id and c.status = 'open' returning 1`,
      bindings: [plan.released.map((r) => r.org_id), plan.released.map((r) => r.invoice_id)],
      rows: plan.released.length,
    });
  if (plan.entries.length)
    writes.push({
      sql: `insert into partner_transactions (org_id, partner_id, type, source, source_id, invoice_id, document_number, date, amount,
                                              balance_effect, receivable_effect, event_id, currency, accounting_amount, accounting_effect,
                                              accounting_receivable_effect)
            select e.org_id, e.partner_id, e.type, e.source, e.source_id, e.invoice_id, e.document_number, e.date, e.amount,
                   e.balance_effect, e.receivable_effect, e.event_id, e.currency, e.accounting_amount, e.accounting_effect,
                   e.accounting_receivable_effect
              from rows from (jsonb_to_recordset(?::jsonb) as (org_id int, partner_id int, type text, source text, source_id int,
                     invoice_id int, document_number text, date date, amount numeric, balance_effect numeric, receivable_effect numeric,
                     event_id uuid, currency text, accounting_amount numeric, accounting_effect numeric, accounting_receivable_effect numeric))
                   with ordinality as e(org_id, partner_id, type, source, source_id, invoice_id, document_number, date, amount,
                     balance_effect, receivable_effect, event_id, currency, accounting_amount, accounting_effect, accounting_receivable_effect, ord)
             order by e.ord
            on conflict (org_id, source, source_id) do nothing returning 1`,
      bindings: [json(plan.entries)],
      rows: plan.entries.length,
    });
  if (plan.moves.length)
    writes.push({
      sql: `insert into partner_balances as b (org_id, partner_id, currency, balance, receivable, committed, documents_total,
                                               documents_accounting, booked_balance, booked_receivable, booked_face_balance, booked_face_receivable)
            select m.org_id, m.partner_id, m.currency, m.balance, m.receivable, m.committed, m.documents_total, m.documents_accounting,
                   m.booked_balance, m.booked_receivable, m.booked_face_balance, m.booked_face_receivable
              from jsonb_to_recordset(?::jsonb) as m(org_id int, partner_id int, currency text, balance numeric, receivable numeric,
                     committed numeric, documents_total numeric, documents_accounting numeric, booked_balance numeric,
                     booked_receivable numeric, booked_face_balance numeric, booked_face_receivable numeric)
             order by m.org_id, m.partner_id, m.currency
            on conflict (org_id, partner_id, currency) do update set
              balance = b.balance + excluded.balance, receivable = b.receivable + excluded.receivable,
              committed = b.committed + excluded.committed, documents_total = b.documents_total + excluded.documents_total,
              documents_accounting = b.documents_accounting + excluded.documents_accounting,
              booked_balance = b.booked_balance + excluded.booked_balance, booked_receivable = b.booked_receivable + excluded.booked_receivable,
              booked_face_balance = b.booked_face_balance + excluded.booked_face_balance,
              booked_face_receivable = b.booked_face_receivable + excluded.booked_face_receivable
            returning 1`,
      bindings: [json(plan.moves)],
      rows: plan.moves.length,
    });
  if (plan.figures.length) {
    const figures = [...plan.figures].sort((a, b) => a.partner_id - b.partner_id);
    writes.push({
      sql: `update partners p set balance = f.balance, receivable = f.receivable, committed = f.committed, updated_at = now()
              from unnest(?::int[], ?::text[], ?::numeric[], ?::numeric[], ?::numeric[]) as f(id, version, balance, receivable, committed)
             where p.id = f.id and p.xmin::text = f.version returning 1`,
      bindings: [
        figures.map((f) => f.partner_id),
        figures.map((f) => f.version),
        figures.map((f) => f.balance),
        figures.map((f) => f.receivable),
        figures.map((f) => f.committed),
      ],
      rows: figures.length,
    });
  }
  return { writes };
}
