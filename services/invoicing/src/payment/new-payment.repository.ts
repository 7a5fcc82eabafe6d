import { numberedRows, storeAt, type Knex, type StoreMoment, type StorePart } from '@bo/runtime';
import { HELD_SETTINGS_CTE, HELD_SETTINGS_JSON } from '@bo/billing';
import { postingGuard, READ_SETTINGS_VERSION } from '../invoice/validation.repository';
import type { NewPaymentPlan, NewPaymentState } from './decide-new-payment';
import { bookedQuery, paymentParts, ratesInWindowQuery, settlementPart } from './payment.repository';
import { splitDocuments, type CashLoadRow } from './cash-load';

/**
 * Everything a new payment decides on, in one statement: the organization's settings read held (its
 * settings lock taken shared first, as every posting takes it before any other lock), then the
 * documents it names locked in id order (as lockDocuments locks them), each with what its entry
 * booked and the version this transaction's change gives it; the rate table's rates of the payment's
 * currency in `rateDates` (decide-registration.ts `rateWindow`); the ids of the entry, the payment and
 * each allocation drawn; and the transaction's timestamp, which the store's `now()` writes too. A
 * locked row is read as it stands once its lock is held; what its entry booked is read in the
 * statement's snapshot, taken before that wait, so for a document whose locked row is newer than the
 * one the snapshot sees (its validation committed meanwhile) it is read again.
 */
export async function loadNewPayment(
  trx: Knex.Transaction,
  orgId: number,
  req: NewPaymentAsked,
  rateDates: { from: string; to: string },
): Promise<NewPaymentState> {
  const { rows } = await trx.raw<{ rows: LoadedRow[] }>(newPaymentLoad('locked'), newPaymentBindings(orgId, req, rateDates));
  const { state, stale } = stateOf(rows);
  if (!stale.length) return state;
  const { rows: current } = await trx.raw<{ rows: Array<{ invoice_id: number; booked: string }> }>(
    bookedQuery('e.invoice_id = any(?::int[])'),
    [stale],
  );
  const booked = new Map(state.booked);
  for (const id of stale) booked.set(id, current.find((r) => r.invoice_id === id)?.booked ?? null);
  return { ...state, booked };
}

/**
 * The same, read with no lock and no transaction, for the optimistic store (storeNewPaymentAlone),
 * with the versions it checks: the settings' (READ_SETTINGS_VERSION) and each document's xmin. A
 * document's next version is one more: the store is a transaction of its own.
 */
export async function readNewPayment(
  db: Knex,
  orgId: number,
  req: NewPaymentAsked,
  rateDates: { from: string; to: string },
): Promise<{ state: NewPaymentState; read: NewPaymentRead }> {
  const { rows } = await db.raw<{ rows: LoadedRow[] }>(newPaymentLoad('read'), newPaymentBindings(orgId, req, rateDates));
  const documents = new Map(rows.flatMap((r) => (r.id === null ? [] : [[r.id, r.locked_version] as const])));
  return { state: stateOf(rows).state, read: { settings: rows[0]!.settings_version, documents } };
}

/** What an optimistic new payment read and its store checks: the settings' versions and each document's xmin, by id. */
export interface NewPaymentRead {
  settings: string | null;
  documents: ReadonlyMap<number, string>;
}

type NewPaymentAsked = { currency: string | null; allocations?: ReadonlyArray<{ invoice_id: number }> };

function newPaymentBindings(orgId: number, req: NewPaymentAsked, rateDates: { from: string; to: string }): Knex.RawBinding[] {
  const requested = req.allocations ?? [];
  const ids = [...new Set(requested.map((a) => a.invoice_id))].sort((a, b) => a - b);
  return [orgId, orgId, ids, requested.length, orgId, req.currency, rateDates.to, rateDates.from];
}

/** `locked`: the settings held and the documents locked in id order; `read`: both as they stand, with no lock. */
function newPaymentLoad(mode: 'locked' | 'read'): string {
  const head =
    mode === 'locked'
      ? `with ${HELD_SETTINGS_CTE},
          locked as materialized (
            select i.*, i.xmin::text as locked_version, (select s.xmin::text from invoices s where s.id = i.id) as seen_version,
                   case when i.version_xact is distinct from pg_current_xact_id() then i.version + 1 else i.version end as next_version
              from invoices i
             where i.org_id = ? and i.id = any(?::int[]) and (select count(*) from held) >= 0
             order by i.id
               for update of i)`
      : `with held as materialized (select * from organization_settings where org_id = ?::int),
          locked as materialized (
            select i.*, i.xmin::text as locked_version, i.xmin::text as seen_version, i.version + 1 as next_version
              from invoices i
             where i.org_id = ? and i.id = any(?::int[]))`;
  return `${head},
          drawn as materialized (
            select nextval(pg_get_serial_sequence('journal_entries', 'id'))::int as entry_id,
                   nextval(pg_get_serial_sequence('payments', 'id'))::int as payment_id,
                   array(select nextval(pg_get_serial_sequence('payment_allocations', 'id'))::int
                           from ${numberedRows('?::int')} order by n) as allocation_ids
             where (select count(*) from locked) >= 0)
     select ${HELD_SETTINGS_JSON} as settings_held, ${READ_SETTINGS_VERSION} as settings_version,
            d.entry_id as drawn_entry_id, d.payment_id as drawn_payment_id, d.allocation_ids as drawn_allocation_ids,
            now() as loaded_at,
            ${ratesInWindowQuery('?::int', '?::text')} as table_rates,
            locked.locked_version is distinct from locked.seen_version as waited,
            (select b.booked from (${bookedQuery('e.invoice_id = locked.id')}) b where locked.exchange_rate is not null) as entry_booked,
            locked.*
       from drawn d left join locked on true
      order by locked.id`;
}

/** The state the rows read, and the documents whose entry must be read again (their lock was waited for). */
function stateOf(rows: LoadedRow[]): { state: NewPaymentState; stale: number[] } {
  const first = rows[0] as LoadedRow;
  const { documents, booked } = splitDocuments(rows, HEAD);
  const stale = rows.flatMap((row) => (row.id !== null && row.waited && row.exchange_rate !== null ? [row.id] : []));
  const state = {
    settings: first.settings_held,
    documents,
    booked,
    rates: first.table_rates,
    ids: { entryId: first.drawn_entry_id, paymentId: first.drawn_payment_id, allocationIds: first.drawn_allocation_ids },
    now: first.loaded_at,
  };
  return { state, stale };
}

type LoadedRow = CashLoadRow<{
  drawn_entry_id: number;
  drawn_payment_id: number;
  drawn_allocation_ids: number[];
  table_rates: Array<{ date: string; rate: string }>;
  waited: boolean | null;
}>;

const HEAD = ['drawn_entry_id', 'drawn_payment_id', 'drawn_allocation_ids', 'table_rates', 'waited'] as const;

/**
 * Stores a decided payment: the payment, its entry and lines, its allocations under the ids the load
 * drew, and each document's paid amount and status, as one statement. With the statement that commits
 * (storeWithCommit, the events' outbox rows and the recorded reply joining them there), or at once
 * when the caller goes on to write what names the payment (bank reconciliation).
 */
export async function storeNewPayment(trx: Knex.Transaction, plan: NewPaymentPlan, when: StoreMoment): Promise<void> {
  await storeAt(trx, newPaymentParts(plan, {}), when);
}

/**
 * The optimistic store of a payment decided on an unlocked read (readNewPayment), as the parts of one
 * statement with no transaction of its own (one-statement.ts): the settings held and checked
 * (postingGuard, `store1`), each document settled only while it is still the row read (`store2`),
 * and the rest. `expects` holds when the settings were unchanged and every document was settled:
 * otherwise nothing of the statement stays and the runtime records the payment under the locks.
 */
export function storeNewPaymentAlone(plan: NewPaymentPlan, orgId: number, read: NewPaymentRead): { parts: StorePart[]; expects: string } {
  const settles = plan.documents.length > 0;
  return {
    parts: [
      postingGuard(orgId, read.settings),
      ...newPaymentParts(plan, settles ? { at: plan.documents[0]!.updated_at, read: read.documents } : undefined),
    ],
    expects: settles ? `(select count(*) from store2) = ${plan.documents.length}` : '(select unchanged from store1)',
  };
}

/** The payment's parts; the documents' settlement first (`store2` after a guard), when it settles any. */
function newPaymentParts(plan: NewPaymentPlan, settled: Parameters<typeof settlementPart>[1] | undefined): StorePart[] {
  return [
    ...(plan.documents.length ? [settlementPart(plan.documents, settled)] : []),
    ...paymentParts(plan.ids, plan.entry, plan.lines, plan.payment, plan.allocations),
  ];
}
