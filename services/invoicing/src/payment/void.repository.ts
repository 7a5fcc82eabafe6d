import { exactJson, storeAt, type Knex, type StoreMoment, type StorePart } from '@bo/runtime';
import { HELD_SETTINGS_JSON } from '@bo/billing';
import { entryParts } from '../invoice/journal.repository';
import { postingGuard, READ_SETTINGS_VERSION } from '../invoice/validation.repository';
import type { VoidPlan, VoidState } from './decide-void';
import { bookedQuery, settlementPart } from './payment.repository';
import {
  ALLOCATION_INTS,
  cashLoadSql,
  PAYMENT_COLUMNS,
  PAYMENT_INTS,
  paymentOfJson,
  REFUND_INTS,
  splitDocuments,
  type CashLoadRow,
  type PaymentColumns,
} from './cash-load';

/**
 * Everything voiding a payment decides on, in one statement (VoidState). `locked`: the settings held
 * (their lock taken shared first, as every posting takes it before any other), then the payment
 * locked, then the documents its active allocations settle, locked in id order (every cash operation
 * locks its payment first, then its documents in ascending id). `read`: all of it as it stands, with
 * no lock, with the versions an optimistic store checks. `paymentId`: the payment's id as SQL, a
 * binding unless a larger statement reads the void of a payment it names itself (bank unreconcile).
 */
export function voidLoad(mode: 'locked' | 'read', paymentId = '?'): string {
  const { settings, lock, seen, nextVersion } = cashLoadSql(mode);
  return `with ${settings},
          pay as materialized (
            select p.*, p.xmin::text as locked_version, ${seen('payments', 'p')} as seen_version
              from payments p where p.org_id = ? and p.id = ${paymentId} and (select count(*) from held) >= 0 ${lock('p')}),
          docs as materialized (
            select i.*, i.xmin::text as locked_version, ${seen('invoices', 'i')} as seen_version, ${nextVersion} as next_version
              from invoices i
             where i.id in (select a.invoice_id from payment_allocations a join pay on a.payment_id = pay.id where a.status = 'active')
             order by i.id ${lock('i')}),
          drawn as materialized (
            select case when exists (select 1 from pay) then nextval(pg_get_serial_sequence('journal_entries', 'id'))::int end as entry_id
             where (select count(*) from docs) >= 0)
     select ${HELD_SETTINGS_JSON} as settings_held, ${READ_SETTINGS_VERSION} as settings_version,
            (select ${exactJson('pay', PAYMENT_INTS)} from pay) as payment_json,
            (select pay.locked_version from pay) as payment_version,
            coalesce((select bool_or(pay.locked_version is distinct from pay.seen_version) from pay), false)
              or coalesce((select bool_or(d.locked_version is distinct from d.seen_version) from docs d), false) as waited,
            coalesce((select jsonb_agg(${exactJson('a', ALLOCATION_INTS)} || jsonb_build_object('invoicenumber', n.invoicenumber) order by a.id)
                        from payment_allocations a join invoices n on n.id = a.invoice_id where a.payment_id = (select id from pay)), '[]') as allocations,
            coalesce((select jsonb_agg(${exactJson('r', REFUND_INTS)} order by r.id)
                        from payment_refunds r where r.payment_id = (select id from pay)), '[]') as refunds,
            drawn.entry_id as drawn_entry_id,
            now() as loaded_at,
            (select b.booked from (${bookedQuery('e.invoice_id = docs.id')}) b where docs.exchange_rate is not null) as entry_booked,
            docs.*
       from drawn left join docs on true
      order by docs.id`;
}

export type LoadedRow = CashLoadRow<PaymentColumns & { drawn_entry_id: number | null }>;

const HEAD = [...PAYMENT_COLUMNS, 'drawn_entry_id'] as const;

/** What an optimistic void read and its store checks: the settings' versions, the payment's xmin and each document's, by id. */
export interface VoidRead {
  settings: string | null;
  payment: string | null;
  documents: ReadonlyMap<number, string>;
}

/** The void's state as its load's rows (voidLoad) answer it. */
export function stateOf(rows: LoadedRow[]): VoidState {
  const first = rows[0]!;
  const { documents, booked } = splitDocuments(rows, HEAD);
  const payment = first.payment_json && paymentOfJson(first.payment_json);
  return {
    settings: first.settings_held,
    payment,
    allocations: first.allocations,
    refunds: first.refunds,
    documents,
    booked,
    entryId: first.drawn_entry_id ?? 0,
    now: first.loaded_at,
  };
}

/**
 * The void's state read under its locks (voidLoad `locked`). What a statement reads besides the rows
 * it locks is as its snapshot, taken before any wait for a lock, saw it: when a lock was waited for
 * (a commit changed the payment or a document meanwhile), the statement is read again, holding them.
 */
export async function loadVoid(trx: Knex.Transaction, orgId: number, paymentId: number): Promise<VoidState> {
  for (let attempt = 1; ; attempt++) {
    const { rows } = await trx.raw<{ rows: LoadedRow[] }>(voidLoad('locked'), [orgId, orgId, paymentId]);
    if (!rows[0]!.waited || attempt === 3) return stateOf(rows);
  }
}

/** The same, read with no lock and no transaction, for the optimistic store (storeVoidAlone), with the versions it checks. */
export async function readVoid(db: Knex, orgId: number, paymentId: number): Promise<{ state: VoidState; read: VoidRead }> {
  const { rows } = await db.raw<{ rows: LoadedRow[] }>(voidLoad('read'), [orgId, orgId, paymentId]);
  return { state: stateOf(rows), read: readOf(rows) };
}

/** The versions an optimistic void's store checks, as its read (voidLoad `read`) answered them. */
export function readOf(rows: LoadedRow[]): VoidRead {
  const documents = new Map(rows.flatMap((r) => (r.id === null ? [] : [[r.id, r.locked_version] as const])));
  return { settings: rows[0]!.settings_version, payment: rows[0]!.payment_version, documents };
}

/**
 * The payment voided (only while its xmin is `read`, and the settings unchanged, when given), its
 * documents owing again, its active allocations voided, and the reversal entry under the id the load
 * drew; every time written is the load's.
 */
function voidParts(plan: VoidPlan, read?: VoidRead): StorePart[] {
  const p = plan.payment;
  const guarded = read !== undefined;
  return [
    {
      sql: `update payments
               set status = 'voided', allocated = 0, void_journal_entry_id = ?, void_reason = ?, void_date = ?, voided_at = ?
             where id = ?${guarded ? ' and xmin::text = ? and (select unchanged from store1) returning id' : ''}`,
      bindings: [plan.entryId, p.void_reason, plan.voidDate, p.voided_at, p.id, ...(guarded ? [read.payment ?? ''] : [])],
    },
    ...(plan.documents.length ? [settlementPart(plan.documents, { at: p.voided_at!, ...(guarded ? { read: read.documents } : {}) })] : []),
    ...(plan.voided.length
      ? [
          {
            sql: `update payment_allocations set status = 'voided', voided_at = ? where id = any(?::int[])`,
            bindings: [p.voided_at, plan.voided],
          },
        ]
      : []),
    ...entryParts(plan.entryId, plan.entry, plan.lines),
  ];
}

/** Stores a decided void (voidParts): with the statement that commits, or at once when the caller goes on to write. */
export async function storeVoid(trx: Knex.Transaction, plan: VoidPlan, when: StoreMoment): Promise<void> {
  await storeAt(trx, voidParts(plan), when);
}

/**
 * The optimistic store of a void decided on an unlocked read (readVoid), as the parts of one
 * statement (one-statement.ts): the settings held and checked (postingGuard, `store1`), the payment
 * voided only while it is the row read (`store2`: every allocation, refund or void of it changes it),
 * each document owing again only while it is the row read (`store3`), and the rest. `expects` holds
 * when all of them were written: otherwise nothing of the statement stays, and the runtime voids under
 * the locks.
 */
export function storeVoidAlone(plan: VoidPlan, read: VoidRead): { parts: StorePart[]; expects: string } {
  const documents = plan.documents.length ? ` and (select count(*) from store3) = ${plan.documents.length}` : '';
  return {
    parts: [postingGuard(plan.entry.org_id, read.settings), ...voidParts(plan, read)],
    expects: `(select count(*) from store2) = 1${documents}`,
  };
}
