import { consumer } from '@bo/contracts';
import { bindConsumer, type Knex, type Logger } from '@bo/runtime';
import { cashStep } from './cash-plan';
import { decideRecordFigures } from './currency-balances';
import { groupBalances, loadPartnerBalances, storeRecordFigures, type BalanceRow } from './currency-balances.repository';
import { ledgerStep, partnerOf, setBasedRuns, sumCurrencyMoves, type LedgerEntry, type LedgerStep } from './ledger-plan';

/**
 * Moves partner balances and committed amounts from invoicing and sales events. Each batch runs in
 * the inbox transaction (exactly once); every effect is an addition, so events for one invoice may
 * be applied in any order.
 *
 * A batch is applied as sets, a few statements whatever its size (the partners it names, the
 * commitments it releases, those it opens, the rows it posts, the balances per currency moved, the
 * partners' figures weighed and stored), not a
 * few per event: under a burst of validations the ledger keeps up instead of queueing, and a
 * partner's balance shows an invoice within milliseconds of its validation.
 */
export const ledgerConsumer = bindConsumer(consumer.partnersLedger).to({
  async batch(trx, events, log) {
    // Cash application events first (cash-plan.ts), then invoices, payments and conversions.
    const steps = events.map((event) => cashStep(event) ?? ledgerStep(event));
    for (const step of steps) {
      if (step.releases === undefined && !step.commits && !step.posts && !step.also?.length && !step.commitsNothing)
        log.warn({ event_id: step.event.id, type: step.event.type }, 'event type not handled by the ledger');
    }
    for (const run of setBasedRuns(steps)) await applyRun(trx, run, log);
  },
});

async function applyRun(trx: Knex.Transaction, run: LedgerStep[], log: Logger): Promise<void> {
  const known = await knownPartners(trx, run);
  const named = run.filter((step) => {
    const partnerId = partnerOf(step);
    if (partnerId === undefined || known.has(`${step.event.org_id}:${partnerId}`)) return true;
    log.error(
      { event_id: step.event.id, type: step.event.type, partner_id: partnerId },
      'event names a partner this organization does not have; ignored',
    );
    return false;
  });
  // A validation releases its invoice's commitment even when its partner is unknown, as a cancellation does.
  const released = await releaseCommitments(trx, run);
  const committed = await openCommitments(trx, named);
  const posted = await postEntries(trx, named);
  await moveBalances(trx, [
    ...released.map((r) => ({ partner_id: r.partner_id, currency: r.currency, committed: `-${r.amount}` })),
    ...committed.map((c) => ({ partner_id: c.partner_id, currency: c.currency, committed: c.amount })),
    ...posted.map((p) => ({
      partner_id: p.partner_id,
      currency: p.currency,
      balance: p.balance_effect,
      receivable: p.receivable_effect,
      ...(p.source === 'invoice' ? { document: { amount: p.amount, accounting_amount: p.accounting_amount } } : {}),
      // What its journal entry moved, when the event told it (docs/partners.md "Currencies").
      ...(p.accounting_effect !== null
        ? { journal: { balance: p.accounting_effect, receivable: p.accounting_receivable_effect ?? '0' } }
        : {}),
    })),
  ]);
}

/** The `org:partner` pairs of the run's partners that exist (deleted ones included: their history stays). */
async function knownPartners(trx: Knex.Transaction, run: LedgerStep[]): Promise<Set<string>> {
  const asked = run.flatMap((step) => {
    const partnerId = partnerOf(step);
    return partnerId === undefined ? [] : [{ org: step.event.org_id, id: partnerId }];
  });
  if (!asked.length) return new Set();
  const result: unknown = await trx.raw(
    `select p.org_id, p.id from partners p join unnest(?::int[], ?::int[]) as a(org_id, id) on p.org_id = a.org_id and p.id = a.id`,
    [asked.map((a) => a.org), asked.map((a) => a.id)],
  );
  return new Set((result as { rows: Array<{ org_id: number; id: number }> }).rows.map((r) => `${r.org_id}:${r.id}`));
}

/**
 * Validation or cancellation ends a commitment: open ones are released (and their amounts leave
 * `committed`); where none exists yet a released placeholder stops a late conversion event adding
 * one. Both in one upsert, on purpose not an update beside an insert: another instance may be
 * committing the conversion's row while this runs, and only `on conflict do update` waits for it
 * and then acts on the row as committed; an update would read its statement's snapshot, miss the
 * row and leave it open for ever (partners.int "two ledger instances side by side").
 */
async function releaseCommitments(
  trx: Knex.Transaction,
  run: LedgerStep[],
): Promise<Array<{ partner_id: number; amount: string; currency: string | null }>> {
  const ends = new Map<string, { org: number; invoice: number }>();
  for (const step of run)
    if (step.releases !== undefined) ends.set(`${step.event.org_id}:${step.releases}`, { org: step.event.org_id, invoice: step.releases });
  if (!ends.size) return [];
  const ended = [...ends.values()];
  const result: unknown = await trx.raw(
    `with ended as (
       insert into commitments as c (org_id, invoice_id, amount, status, released_at)
       select org_id, invoice_id, 0, 'released', now() from unnest(?::int[], ?::int[]) as e(org_id, invoice_id)
       order by 1, 2
       on conflict (org_id, invoice_id) do update set status = 'released', released_at = excluded.released_at
       where c.status = 'open'
       returning c.partner_id, c.amount, c.currency)
     -- A placeholder names no partner; a released commitment keeps the one it had.
     select partner_id, amount, currency from ended where partner_id is not null`,
    [ended.map((e) => e.org), ended.map((e) => e.invoice)],
  );
  return (result as { rows: Array<{ partner_id: number; amount: string; currency: string | null }> }).rows;
}

/** Conversions open commitments; an invoice validated or cancelled first left a placeholder, so nothing is added. */
async function openCommitments(
  trx: Knex.Transaction,
  run: LedgerStep[],
): Promise<Array<{ partner_id: number; amount: string; currency: string | null }>> {
  const rows = run.flatMap((step) => (step.commits ? [{ ...step.commits, org_id: step.event.org_id, status: 'open' }] : []));
  if (!rows.length) return [];
  return trx('commitments').insert(rows).onConflict(['org_id', 'invoice_id']).ignore().returning(['partner_id', 'amount', 'currency']);
}

/** Posts each document or payment once per source; a source posted before adds nothing. */
async function postEntries(
  trx: Knex.Transaction,
  run: LedgerStep[],
): Promise<
  Array<
    Pick<
      LedgerEntry,
      | 'partner_id'
      | 'balance_effect'
      | 'receivable_effect'
      | 'currency'
      | 'source'
      | 'amount'
      | 'accounting_amount'
      | 'accounting_effect'
      | 'accounting_receivable_effect'
    >
  >
> {
  const rows = run.flatMap((step) =>
    [...(step.posts ? [step.posts] : []), ...(step.also ?? [])].map((row) => ({
      ...row,
      org_id: step.event.org_id,
      event_id: step.event.id,
    })),
  );
  if (!rows.length) return [];
  return trx('partner_transactions')
    .insert(rows)
    .onConflict(['org_id', 'source', 'source_id'])
    .ignore()
    .returning([
      'partner_id',
      'balance_effect',
      'receivable_effect',
      'currency',
      'source',
      'amount',
      'accounting_amount',
      'accounting_effect',
      'accounting_receivable_effect',
    ]);
}

/**
 * Load, decide, store, for every partner the run moved: their rows locked in id order (instances
 * applying batches side by side tend to lock alike; a deadlock all the same runs the batch again, the
 * inbox retries it, and an edit of the partner's currency waits for the batch or the batch for it),
 * the moves added per currency (partner_balances: a row that names no currency is in the partner's,
 * else the organization's) in the statement that reads back every balance of those partners, then
 * each partner's own `balance`, `receivable` and `committed` set to its balances weighed as the
 * balance view weighs them (decideRecordFigures): never face amounts of different currencies added.
 *
 * The lock is taken inside that statement, whose snapshot predates any wait for it: a partner row
 * another instance changed while this one waited (`xmin` of the row locked differs from the one the
 * snapshot sees; every batch that moves a partner's balances writes its row) means the balances read
 * back may lack what that instance committed, so they are read again, under the lock, in a statement
 * of its own (partners.int "weighs a partner's figures"). Only a batch that waited pays that statement.
 */
async function moveBalances(trx: Knex.Transaction, moves: Parameters<typeof sumCurrencyMoves>[0]): Promise<void> {
  const byCurrency = sumCurrencyMoves(moves);
  if (!byCurrency.length) return;
  const ids = [...new Set(byCurrency.map((s) => s.partner_id))].sort((a, b) => a - b);
  const result: unknown = await trx.raw(
    `with locked as (
       select id, org_id, currency, xmin::text as locked_version,
              (select s.xmin::text from partners s where s.id = partners.id) as seen_version
         from partners where id = any(?::int[]) order by id for update),
     moved as (
     insert into partner_balances as b (org_id, partner_id, currency, balance, receivable, committed, documents_total, documents_accounting,
                                        booked_balance, booked_receivable, booked_face_balance, booked_face_receivable)
     select p.org_id, p.id, coalesce(nullif(m.currency, ''), p.currency, o.default_currency, ''), sum(m.balance), sum(m.receivable),
            sum(m.committed), sum(m.documents_total), sum(m.documents_accounting),
            sum(m.booked_balance), sum(m.booked_receivable), sum(m.booked_face_balance), sum(m.booked_face_receivable)
       from unnest(?::int[], ?::text[], ?::numeric[], ?::numeric[], ?::numeric[], ?::numeric[], ?::numeric[],
                   ?::numeric[], ?::numeric[], ?::numeric[], ?::numeric[])
              as m(id, currency, balance, receivable, committed, documents_total, documents_accounting,
                   booked_balance, booked_receivable, booked_face_balance, booked_face_receivable)
       join locked p on p.id = m.id
       left join organization_profiles o on o.org_id = p.org_id
      group by 1, 2, 3
      order by 1, 2, 3
     on conflict (org_id, partner_id, currency) do update set
       balance = b.balance + excluded.balance, receivable = b.receivable + excluded.receivable, committed = b.committed + excluded.committed,
       documents_total = b.documents_total + excluded.documents_total, documents_accounting = b.documents_accounting + excluded.documents_accounting,
       booked_balance = b.booked_balance + excluded.booked_balance, booked_receivable = b.booked_receivable + excluded.booked_receivable,
       booked_face_balance = b.booked_face_balance + excluded.booked_face_balance,
       booked_face_receivable = b.booked_face_receivable + excluded.booked_face_receivable
     returning b.*)
     -- Each locked partner's balances as the upsert leaves them: the rows it wrote, and those it left.
     select p.id as partner_id, p.locked_version is distinct from p.seen_version as waited,
            p.currency as partner_currency, o.default_currency as accounting, r.currency, r.balance, r.receivable,
            r.committed, r.documents_total, r.documents_accounting, r.booked_balance, r.booked_receivable, r.booked_face_balance,
            r.booked_face_receivable
       from locked p
       left join organization_profiles o on o.org_id = p.org_id
       left join lateral (
         select m.currency, m.balance, m.receivable, m.committed, m.documents_total, m.documents_accounting, m.booked_balance,
                m.booked_receivable, m.booked_face_balance, m.booked_face_receivable
           from moved m where m.org_id = p.org_id and m.partner_id = p.id
         union all
         select b.currency, b.balance, b.receivable, b.committed, b.documents_total, b.documents_accounting, b.booked_balance,
                b.booked_receivable, b.booked_face_balance, b.booked_face_receivable
           from partner_balances b
          where b.org_id = p.org_id and b.partner_id = p.id
            and not exists (select 1 from moved m where m.org_id = b.org_id and m.partner_id = b.partner_id and m.currency = b.currency)
       ) r on true
      order by p.id, r.currency`,
    [
      ids,
      byCurrency.map((s) => s.partner_id),
      byCurrency.map((s) => s.currency ?? ''),
      byCurrency.map((s) => s.balance.toFixed()),
      byCurrency.map((s) => s.receivable.toFixed()),
      byCurrency.map((s) => s.committed.toFixed()),
      byCurrency.map((s) => s.documents_total.toFixed()),
      byCurrency.map((s) => s.documents_accounting.toFixed()),
      byCurrency.map((s) => s.booked_balance.toFixed()),
      byCurrency.map((s) => s.booked_receivable.toFixed()),
      byCurrency.map((s) => s.booked_face_balance.toFixed()),
      byCurrency.map((s) => s.booked_face_receivable.toFixed()),
    ],
  );
  const rows = (result as { rows: Array<BalanceRow & { waited: boolean }> }).rows;
  const balances = rows.some((r) => r.waited) ? await loadPartnerBalances(trx, ids) : groupBalances(rows);
  await storeRecordFigures(trx, decideRecordFigures(balances));
}
