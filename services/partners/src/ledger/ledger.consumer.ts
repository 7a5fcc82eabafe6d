import { invoicing, sales } from '@bo/contracts';
import type { InboxHandlerDef, Knex, Logger } from '@bo/runtime';
import { cashStep } from './cash-plan';
import { ledgerStep, partnerOf, setBasedRuns, sumCurrencyMoves, sumMoves, type LedgerEntry, type LedgerStep } from './ledger-plan';

/**
 * Moves partner balances and committed amounts from invoicing and sales events. Each batch runs in
 * the inbox transaction (exactly once); every effect is an addition, so events for one invoice may
 * be applied in any order.
 *
 * A batch is applied as sets, a few statements whatever its size (the partners it names, the
 * commitments it releases, those it opens, the rows it posts, one update of the balances), not a
 * few per event: under a burst of validations the ledger keeps up instead of queueing, and a
 * partner's balance shows an invoice within milliseconds of its validation.
 */
export const ledgerConsumer: InboxHandlerDef = {
  name: 'partners.ledger',
  events: [
    invoicing.invoiceValidated.type,
    invoicing.invoiceCancelled.type,
    invoicing.invoicePaymentRegistered.type,
    sales.quotationConverted.type,
    invoicing.paymentCreated.type,
    invoicing.paymentAllocated.type,
    invoicing.paymentRefunded.type,
    invoicing.paymentVoided.type,
    invoicing.invoiceWrittenOff.type,
  ],
  async handleBatch(trx, events, log) {
    // Cash application events first (cash-plan.ts), then invoices, payments and conversions.
    const steps = events.map((event) => cashStep(event) ?? ledgerStep(event));
    for (const step of steps) {
      if (step.releases === undefined && !step.commits && !step.posts && !step.also?.length && !step.commitsNothing)
        log.warn({ event_id: step.event.id, type: step.event.type }, 'event type not handled by the ledger');
    }
    for (const run of setBasedRuns(steps)) await applyRun(trx, run, log);
  },
};

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
 * one. Both in one statement: the update sees only rows from before it, never the placeholders.
 */
async function releaseCommitments(
  trx: Knex.Transaction,
  run: LedgerStep[],
): Promise<Array<{ partner_id: number; amount: string; currency: string | null }>> {
  const ends = run.flatMap((step) => (step.releases === undefined ? [] : [{ org: step.event.org_id, invoice: step.releases }]));
  if (!ends.length) return [];
  const result: unknown = await trx.raw(
    `with ended as (select * from unnest(?::int[], ?::int[]) as e(org_id, invoice_id)),
     placeholders as (
       insert into commitments (org_id, invoice_id, amount, status, released_at)
       select org_id, invoice_id, 0, 'released', now() from ended
       on conflict (org_id, invoice_id) do nothing
     )
     update commitments c set status = 'released', released_at = now()
     from ended where c.org_id = ended.org_id and c.invoice_id = ended.invoice_id and c.status = 'open'
     returning c.partner_id, c.amount, c.currency`,
    [ends.map((e) => e.org), ends.map((e) => e.invoice)],
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
 * One update for every partner the run moved, fed in id order so that instances applying batches side
 * by side tend to lock rows alike; a deadlock all the same runs the batch again (the inbox retries it).
 */
async function moveBalances(trx: Knex.Transaction, moves: Parameters<typeof sumCurrencyMoves>[0]): Promise<void> {
  const sums = sumMoves(moves).sort((a, b) => a.partner_id - b.partner_id);
  if (!sums.length) return;
  // The same moves per currency, in the same statement: a row that names none is in the partner's
  // currency, else the organization's.
  const byCurrency = sumCurrencyMoves(moves);
  await trx.raw(
    `with moved as (
       update partners p set balance = p.balance + m.balance, receivable = p.receivable + m.receivable,
         committed = p.committed + m.committed, updated_at = now()
       from (select * from unnest(?::int[], ?::numeric[], ?::numeric[], ?::numeric[]) as m(id, balance, receivable, committed) order by id) m
       where p.id = m.id
       returning p.id, p.org_id, p.currency
     )
     insert into partner_balances as b (org_id, partner_id, currency, balance, receivable, committed, documents_total, documents_accounting,
                                        booked_balance, booked_receivable, booked_face_balance, booked_face_receivable)
     select moved.org_id, moved.id, coalesce(nullif(m.currency, ''), moved.currency, o.default_currency, ''), sum(m.balance), sum(m.receivable),
            sum(m.committed), sum(m.documents_total), sum(m.documents_accounting),
            sum(m.booked_balance), sum(m.booked_receivable), sum(m.booked_face_balance), sum(m.booked_face_receivable)
       from unnest(?::int[], ?::text[], ?::numeric[], ?::numeric[], ?::numeric[], ?::numeric[], ?::numeric[],
                   ?::numeric[], ?::numeric[], ?::numeric[], ?::numeric[])
              as m(id, currency, balance, receivable, committed, documents_total, documents_accounting,
                   booked_balance, booked_receivable, booked_face_balance, booked_face_receivable)
       join moved on moved.id = m.id
       left join organization_profiles o on o.org_id = moved.org_id
      group by 1, 2, 3
      order by 1, 2, 3
     on conflict (org_id, partner_id, currency) do update set
       balance = b.balance + excluded.balance, receivable = b.receivable + excluded.receivable, committed = b.committed + excluded.committed,
       documents_total = b.documents_total + excluded.documents_total, documents_accounting = b.documents_accounting + excluded.documents_accounting,
       booked_balance = b.booked_balance + excluded.booked_balance, booked_receivable = b.booked_receivable + excluded.booked_receivable,
       booked_face_balance = b.booked_face_balance + excluded.booked_face_balance,
       booked_face_receivable = b.booked_face_receivable + excluded.booked_face_receivable`,
    [
      sums.map((s) => s.partner_id),
      sums.map((s) => s.balance.toFixed()),
      sums.map((s) => s.receivable.toFixed()),
      sums.map((s) => s.committed.toFixed()),
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
}
