import { exactJson, storeAt, type Knex, type StoreMoment, type StorePart } from '@bo/runtime';
import { HELD_SETTINGS_JSON } from '@bo/billing';
import { entryParts } from '../invoice/journal.repository';
import { postingGuard, READ_SETTINGS_VERSION } from '../invoice/validation.repository';
import type { AllocationPlan, AllocationRequest, AllocationState } from './decide-allocation';
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
 * Everything an allocation decides on, in one statement (AllocationState). `locked`: the settings
 * held (their lock taken shared first, as every posting takes it before any other), then the payment
 * locked, then the documents named (the credit note among them) locked in id order (every cash
 * operation locks its payment first, then its documents in ascending id); `read`: all of it as it
 * stands, with no lock, with the versions an optimistic store checks. One allocation id and one entry
 * id are drawn per allocation asked for, when there is a source or a document to allocate between.
 * Bindings: allocationBindings.
 */
function allocationLoad(mode: 'locked' | 'read'): string {
  const { settings, lock, seen, nextVersion } = cashLoadSql(mode);
  return `with ${settings},
          pay as materialized (
            select p.*, p.xmin::text as locked_version, ${seen('payments', 'p')} as seen_version
              from payments p where p.org_id = ? and p.id = ?::int and (select count(*) from held) >= 0 ${lock('p')}),
          docs as materialized (
            select i.*, i.xmin::text as locked_version, ${seen('invoices', 'i')} as seen_version, ${nextVersion} as next_version
              from invoices i
             where i.org_id = ? and i.id = any(?::int[]) and (select count(*) from pay) >= 0
             order by i.id ${lock('i')}),
          drawn as materialized (
            select array(select nextval(pg_get_serial_sequence('journal_entries', 'id'))::int from generate_series(1, d.n) s order by s) as entry_ids,
                   array(select nextval(pg_get_serial_sequence('payment_allocations', 'id'))::int from generate_series(1, d.n) s order by s)
                     as allocation_ids
              from (select case when exists (select 1 from pay) or exists (select 1 from docs) then ?::int else 0 end as n) d)
     select ${HELD_SETTINGS_JSON} as settings_held, ${READ_SETTINGS_VERSION} as settings_version,
            (select ${exactJson('pay', PAYMENT_INTS)} from pay) as payment_json,
            (select pay.locked_version from pay) as payment_version,
            coalesce((select bool_or(pay.locked_version is distinct from pay.seen_version) from pay), false)
              or coalesce((select bool_or(d.locked_version is distinct from d.seen_version) from docs d), false) as waited,
            coalesce((select jsonb_agg(${exactJson('a', ALLOCATION_INTS)} || jsonb_build_object('invoicenumber', n.invoicenumber) order by a.id)
                        from payment_allocations a join invoices n on n.id = a.invoice_id where a.payment_id = (select id from pay)), '[]') as allocations,
            coalesce((select jsonb_agg(${exactJson('r', REFUND_INTS)} order by r.id)
                        from payment_refunds r where r.payment_id = (select id from pay)), '[]') as refunds,
            drawn.entry_ids as drawn_entry_ids, drawn.allocation_ids as drawn_allocation_ids,
            now() as loaded_at,
            (select b.booked from (${bookedQuery('e.invoice_id = docs.id')}) b where docs.exchange_rate is not null) as entry_booked,
            docs.*
       from drawn left join docs on true
      order by docs.id`;
}

type AllocationAsked = Pick<AllocationRequest, 'payment_id' | 'credit_note_id' | 'allocations'>;

function allocationBindings(orgId: number, req: AllocationAsked): Knex.RawBinding[] {
  const ids = [...new Set([...req.allocations.map((a) => a.invoice_id), ...(req.credit_note_id ? [req.credit_note_id] : [])])];
  return [orgId, orgId, req.payment_id ?? null, orgId, ids.sort((a, b) => a - b), req.allocations.length];
}

type LoadedRow = CashLoadRow<PaymentColumns & { drawn_entry_ids: number[]; drawn_allocation_ids: number[] }>;

const HEAD = [...PAYMENT_COLUMNS, 'drawn_entry_ids', 'drawn_allocation_ids'] as const;

function stateOf(rows: LoadedRow[]): AllocationState {
  const first = rows[0]!;
  const { documents, booked } = splitDocuments(rows, HEAD);
  const payment = first.payment_json && paymentOfJson(first.payment_json);
  return {
    settings: first.settings_held,
    payment: payment && { row: payment, allocations: first.allocations, refunds: first.refunds },
    documents,
    booked,
    ids: { entryIds: first.drawn_entry_ids, allocationIds: first.drawn_allocation_ids },
    now: first.loaded_at,
  };
}

/**
 * The allocation's state read under its locks (allocationLoad `locked`). What a statement reads
 * besides the rows it locks is as its snapshot, taken before any wait for a lock, saw it: when a lock
 * was waited for (a commit changed the payment or a document meanwhile), the statement is read again,
 * holding them.
 */
export async function loadAllocation(trx: Knex.Transaction, orgId: number, req: AllocationAsked): Promise<AllocationState> {
  for (let attempt = 1; ; attempt++) {
    const { rows } = await trx.raw<{ rows: LoadedRow[] }>(allocationLoad('locked'), allocationBindings(orgId, req));
    if (!rows[0]!.waited || attempt === 3) return stateOf(rows);
  }
}

/** What an optimistic allocation read and its store checks: the settings' versions, the payment's xmin and each document's, by id. */
export interface AllocationRead {
  settings: string | null;
  payment: string | null;
  documents: ReadonlyMap<number, string>;
}

/** The same, read with no lock and no transaction, for the optimistic store (storeAllocationAlone), with the versions it checks. */
export async function readAllocation(
  db: Knex,
  orgId: number,
  req: AllocationAsked,
): Promise<{ state: AllocationState; read: AllocationRead }> {
  const { rows } = await db.raw<{ rows: LoadedRow[] }>(allocationLoad('read'), allocationBindings(orgId, req));
  const documents = new Map(rows.flatMap((r) => (r.id === null ? [] : [[r.id, r.locked_version] as const])));
  return { state: stateOf(rows), read: { settings: rows[0]!.settings_version, payment: rows[0]!.payment_version, documents } };
}

/**
 * The payment's allocated total (with `read`, only while it is the row read and the settings
 * unchanged), when the credit is a payment's; then every document settled, the credit note among
 * them (with `read`, each only while it is the row read); then the allocations' entries and the
 * allocations, under the ids the load drew. Every time written is the load's.
 */
function allocationParts(plan: AllocationPlan, read?: AllocationRead): StorePart[] {
  const guarded = read !== undefined;
  const at = plan.documents[0]!.updated_at;
  const rows = plan.allocations.map((a) => a.row);
  return [
    ...(plan.payment
      ? [
          {
            sql: `update payments set allocated = ?::numeric
                   where id = ?${guarded ? ' and xmin::text = ? and (select unchanged from store1) returning id' : ''}`,
            bindings: [plan.payment.allocated, plan.payment.id, ...(guarded ? [read.payment ?? ''] : [])],
          },
        ]
      : []),
    settlementPart(plan.documents, { at, ...(guarded ? { read: read.documents } : {}) }),
    ...plan.allocations.flatMap((a) => (a.entry ? entryParts(a.entry.id, a.entry.header, a.entry.lines) : [])),
    {
      sql: `insert into payment_allocations (id, org_id, payment_id, credit_note_id, invoice_id, amount, allocation_date, journal_entry_id,
                                             operation_key, seq, settles_credited)
            select a.id, a.org_id, a.payment_id, a.credit_note_id, a.invoice_id, a.amount, a.allocation_date, a.journal_entry_id,
                   a.operation_key, a.seq, a.settles_credited
              from jsonb_to_recordset(?::jsonb) as a(id int, org_id int, payment_id int, credit_note_id int, invoice_id int, amount numeric,
                                                     allocation_date date, journal_entry_id int, operation_key text, seq int,
                                                     settles_credited boolean)
             order by a.seq`,
      bindings: [JSON.stringify(rows)],
    },
  ];
}

/** Stores a decided allocation (allocationParts) with the statement that commits. */
export async function storeAllocation(trx: Knex.Transaction, plan: AllocationPlan, when: StoreMoment): Promise<void> {
  await storeAt(trx, allocationParts(plan), when);
}

/**
 * The optimistic store of an allocation decided on an unlocked read (readAllocation), as the parts of
 * one statement (one-statement.ts): the settings held and checked (postingGuard, `store1`), the
 * payment's total written only while it is the row read (`store2`: every allocation, refund or void
 * of a payment changes it), every document settled only while it is the row read (the next part),
 * then the entries and the allocations. `expects` holds when the payment and every document were
 * written: otherwise nothing of the statement stays, and the runtime allocates under the locks.
 */
export function storeAllocationAlone(plan: AllocationPlan, read: AllocationRead): { parts: StorePart[]; expects: string } {
  const documents = `(select count(*) from store${plan.payment ? 3 : 2}) = ${plan.documents.length}`;
  return {
    parts: [postingGuard(plan.orgId, read.settings), ...allocationParts(plan, read)],
    expects: plan.payment ? `(select count(*) from store2) = 1 and ${documents}` : documents,
  };
}
