import type { EventEnvelope } from '@bo/contracts';
import { dec } from '@bo/kernel';
import { decideRecordFigures, type CurrencyBalanceRow, type PartnerBalances, type RecordFigures } from './currency-balances';
import { partnerOf, sumCurrencyMoves, type LedgerEntry, type LedgerStep } from './ledger-plan';

/** What a batch of the ledger reads (loadLedger): the keys its events name. */
export interface LedgerKeys {
  /** Partners the events name, as `[org, id]`. */
  partners: Array<[number, number]>;
  /** Invoices whose commitment the events release or open, as `[org, invoice]`. */
  invoices: Array<[number, number]>;
  /** Sources the events post, as `[org, source, source id]`. */
  sources: Array<[number, string, number]>;
}

/** The ledger's state for a batch, as its load read it. */
export interface LedgerState {
  /** The partners named, and those whose commitments the batch may release (deleted ones included). */
  partners: ReadonlyArray<{ id: number; org_id: number; currency: string | null; accounting: string | null; version: string }>;
  /** Those partners' balances per currency. */
  balances: ReadonlyArray<CurrencyBalanceRow & { partner_id: number }>;
  /** The commitments of the invoices named that exist. */
  commitments: ReadonlyArray<Commitment>;
  /** The sources named that are posted already. */
  posted: ReadonlyArray<{ org_id: number; source: string; source_id: number }>;
}

/** A commitment row: a converted quotation's amount, open until its invoice is validated or cancelled. */
export interface Commitment {
  org_id: number;
  invoice_id: number;
  /** null: a placeholder, released before any conversion, so a late one adds nothing. */
  partner_id: number | null;
  quotation_id: number | null;
  quotation_number: string | null;
  amount: string;
  currency: string | null;
  status: 'open' | 'released';
}

/** A partner's balance in one currency moved by a batch: added to partner_balances. */
export type BalanceMove = { org_id: number; partner_id: number; currency: string } & Record<BalanceField, string>;

const BALANCE_FIELDS = [
  'balance',
  'receivable',
  'committed',
  'documents_total',
  'documents_accounting',
  'booked_balance',
  'booked_receivable',
  'booked_face_balance',
  'booked_face_receivable',
] as const;
type BalanceField = (typeof BALANCE_FIELDS)[number];

/** What a batch writes (storeLedger), and what it ignores. */
export interface LedgerPlan {
  /** Commitments that did not exist: opened (a conversion), or released at once (a placeholder, or opened and released in the batch). */
  newCommitments: Commitment[];
  /** Open commitments the load found, now released. */
  released: Array<{ org_id: number; invoice_id: number }>;
  /** Rows posted, once per source. */
  entries: Array<LedgerEntry & { org_id: number; event_id: string }>;
  /** What each partner's balance per currency moves by. */
  moves: BalanceMove[];
  /** The moved partners' record figures, weighed from their balances once moved, each with the version of the partner they were weighed on. */
  figures: Array<RecordFigures & { version: string }>;
  /** Events naming a partner the organization does not have: nothing of them is posted or committed. */
  unknownPartner: Array<{ event: EventEnvelope; partner_id: number }>;
  /** Events the ledger has nothing to do with. */
  unhandled: EventEnvelope[];
}

/** The keys a batch's state is loaded by. */
export function ledgerKeys(steps: readonly LedgerStep[]): LedgerKeys {
  const keys: LedgerKeys = { partners: [], invoices: [], sources: [] };
  for (const step of steps) {
    const org = step.event.org_id;
    const partner = partnerOf(step);
    if (partner !== undefined) keys.partners.push([org, partner]);
    if (step.releases !== undefined) keys.invoices.push([org, step.releases]);
    if (step.commits) keys.invoices.push([org, step.commits.invoice_id]);
    for (const row of [...(step.posts ? [step.posts] : []), ...(step.also ?? [])]) keys.sources.push([org, row.source, row.source_id]);
  }
  return keys;
}

/**
 * Decides a batch of ledger events (fresh ones, in delivery order) on the state its load read, as
 * applying them one by one would: a validation or cancellation releases its invoice's open
 * commitment (or leaves a released placeholder where there is none, so a late conversion adds
 * nothing), a conversion opens one where there is none, a document or payment posts its row once per
 * source; events naming a partner the organization does not have post and commit nothing (their
 * release still happens). Every move is added to its partner's balance in its currency (one that
 * names none is in the partner's, else the organization's), and each partner moved gets its record
 * figures weighed from its balances as they will then stand (decideRecordFigures).
 */
export function decideLedger(steps: readonly LedgerStep[], state: LedgerState): LedgerPlan {
  const partners = new Map(state.partners.map((p) => [`${p.org_id}:${p.id}`, p]));
  const partnerById = new Map(state.partners.map((p) => [p.id, p]));
  const commitments = new Map(state.commitments.map((c) => [`${c.org_id}:${c.invoice_id}`, { ...c, loaded: true }]));
  const posted = new Set(state.posted.map((p) => `${p.org_id}:${p.source}:${p.source_id}`));
  const plan: LedgerPlan = { newCommitments: [], released: [], entries: [], moves: [], figures: [], unknownPartner: [], unhandled: [] };
  const moves: Parameters<typeof sumCurrencyMoves>[0][number][] = [];
  for (const step of steps) {
    const org = step.event.org_id;
    if (step.releases === undefined && !step.commits && !step.posts && !step.also?.length && !step.commitsNothing)
      plan.unhandled.push(step.event);
    const partnerId = partnerOf(step);
    const known = partnerId === undefined || partners.has(`${org}:${partnerId}`);
    if (!known) plan.unknownPartner.push({ event: step.event, partner_id: partnerId });
    if (step.releases !== undefined) {
      const key = `${org}:${step.releases}`;
      const c = commitments.get(key);
      if (!c) {
        commitments.set(key, {
          org_id: org,
          invoice_id: step.releases,
          partner_id: null,
          quotation_id: null,
          quotation_number: null,
          amount: '0',
          currency: null,
          status: 'released',
          loaded: false,
        });
      } else if (c.status === 'open') {
        c.status = 'released';
        if (c.partner_id !== null)
          moves.push({ partner_id: c.partner_id, currency: c.currency, committed: dec(c.amount).negated().toFixed() });
      }
    }
    if (!known) continue;
    if (step.commits && !commitments.has(`${org}:${step.commits.invoice_id}`)) {
      const { invoice_id, partner_id, quotation_id, quotation_number, amount, currency } = step.commits;
      commitments.set(`${org}:${invoice_id}`, {
        org_id: org,
        invoice_id,
        partner_id,
        quotation_id,
        quotation_number,
        amount,
        currency,
        status: 'open',
        loaded: false,
      });
      moves.push({ partner_id, currency, committed: amount });
    }
    for (const row of [...(step.posts ? [step.posts] : []), ...(step.also ?? [])]) {
      const key = `${org}:${row.source}:${row.source_id}`;
      if (posted.has(key)) continue;
      posted.add(key);
      plan.entries.push({ ...row, org_id: org, event_id: step.event.id });
      moves.push({
        partner_id: row.partner_id,
        currency: row.currency,
        balance: row.balance_effect,
        receivable: row.receivable_effect,
        ...(row.source === 'invoice' ? { document: { amount: row.amount, accounting_amount: row.accounting_amount } } : {}),
        // What its journal entry moved, when the event told it (docs/partners.md "Currencies").
        ...(row.accounting_effect !== null
          ? { journal: { balance: row.accounting_effect, receivable: row.accounting_receivable_effect ?? '0' } }
          : {}),
      });
    }
  }
  for (const { loaded, ...c } of commitments.values()) {
    if (!loaded) plan.newCommitments.push(c);
    else if (
      c.status === 'released' &&
      state.commitments.some((s) => s.org_id === c.org_id && s.invoice_id === c.invoice_id && s.status === 'open')
    )
      plan.released.push({ org_id: c.org_id, invoice_id: c.invoice_id });
  }

  // Each move in its partner's currency where it names none (else the organization's), per partner and currency.
  const byCurrency = new Map<string, BalanceMove>();
  for (const m of sumCurrencyMoves(moves)) {
    const p = partnerById.get(m.partner_id);
    if (!p) continue;
    const currency = m.currency || p.currency || p.accounting || '';
    const key = `${p.id}:${currency}`;
    const sum = byCurrency.get(key) ?? { org_id: p.org_id, partner_id: p.id, currency, ...zeroFields() };
    for (const f of BALANCE_FIELDS) sum[f] = dec(sum[f]).plus(m[f]).toFixed();
    byCurrency.set(key, sum);
  }
  plan.moves = [...byCurrency.values()].sort((a, b) => a.partner_id - b.partner_id || a.currency.localeCompare(b.currency));

  const moved = [...new Set(plan.moves.map((m) => m.partner_id))];
  const balances: PartnerBalances[] = moved.map((id) => {
    const p = partnerById.get(id)!;
    const rows = new Map<string, CurrencyBalanceRow>(
      state.balances.filter((b) => b.partner_id === id).map(({ partner_id: _partner, ...b }) => [b.currency, b]),
    );
    for (const m of plan.moves.filter((mv) => mv.partner_id === id)) {
      const row: CurrencyBalanceRow = rows.get(m.currency) ?? { currency: m.currency, ...zeroFields() };
      const next: CurrencyBalanceRow = { ...row };
      for (const f of BALANCE_FIELDS)
        next[f] = dec(row[f] ?? 0)
          .plus(dec(m[f]))
          .toFixed();
      rows.set(m.currency, next);
    }
    return { partner_id: id, currency: p.currency, accounting: p.accounting, rows: [...rows.values()] };
  });
  plan.figures = decideRecordFigures(balances).map((f) => ({ ...f, version: partnerById.get(f.partner_id)!.version }));
  return plan;
}

const zeroFields = (): Record<BalanceField, string> =>
  Object.fromEntries(BALANCE_FIELDS.map((f) => [f, '0'])) as Record<BalanceField, string>;
