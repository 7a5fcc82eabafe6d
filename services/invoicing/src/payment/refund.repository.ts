import { exactJson, storeAt, type Knex, type StoreMoment, type StorePart } from '@bo/runtime';
import { HELD_SETTINGS_JSON } from '@bo/billing';
import { entryParts } from '../invoice/journal.repository';
import { postingGuard, READ_SETTINGS_VERSION } from '../invoice/validation.repository';
import type { RefundPlan, RefundState } from './decide-refund';
import { bookedQuery, ratesInWindowQuery, settlementPart } from './payment.repository';
import { ALLOCATION_INTS, cashLoadSql, PAYMENT_INTS, paymentOfJson, REFUND_INTS, type CashLoadRow, type PaymentColumns } from './cash-load';

/**
 * Everything a refund decides on, in one statement (RefundState). `locked`: the settings held (their
 * lock taken shared first, as every posting takes it before any other), then the credit's source
 * locked, the payment or the credit note; `read`: all of it as it stands, with no lock, with the
 * versions an optimistic store checks. Bindings: refundBindings.
 */
function refundLoad(mode: 'locked' | 'read'): string {
  const { settings, lock, seen, nextVersion } = cashLoadSql(mode);
  return `with ${settings},
          pay as materialized (
            select p.*, p.xmin::text as locked_version, ${seen('payments', 'p')} as seen_version
              from payments p where p.org_id = ? and p.id = ?::int and (select count(*) from held) >= 0 ${lock('p')}),
          note as materialized (
            select i.*, i.xmin::text as locked_version, ${seen('invoices', 'i')} as seen_version, ${nextVersion} as next_version
              from invoices i where i.org_id = ? and i.id = ?::int and (select count(*) from held) >= 0 ${lock('i')}),
          drawn as materialized (
            select case when exists (select 1 from pay) or exists (select 1 from note)
                        then nextval(pg_get_serial_sequence('journal_entries', 'id'))::int end as entry_id,
                   case when exists (select 1 from pay) or exists (select 1 from note)
                        then nextval(pg_get_serial_sequence('payment_refunds', 'id'))::int end as refund_id)
     select ${HELD_SETTINGS_JSON} as settings_held, ${READ_SETTINGS_VERSION} as settings_version,
            (select ${exactJson('pay', PAYMENT_INTS)} from pay) as payment_json,
            (select pay.locked_version from pay) as payment_version,
            coalesce((select bool_or(pay.locked_version is distinct from pay.seen_version) from pay), false)
              or coalesce(note.locked_version is distinct from note.seen_version, false) as waited,
            coalesce((select jsonb_agg(${exactJson('a', ALLOCATION_INTS)} || jsonb_build_object('invoicenumber', n.invoicenumber) order by a.id)
                        from payment_allocations a join invoices n on n.id = a.invoice_id where a.payment_id = (select id from pay)), '[]') as allocations,
            coalesce((select jsonb_agg(${exactJson('r', REFUND_INTS)} order by r.id)
                        from payment_refunds r where r.payment_id = (select id from pay)), '[]') as refunds,
            ${ratesInWindowQuery('?::int', 'coalesce((select currency from pay), note.currency)')} as table_rates,
            drawn.entry_id as drawn_entry_id, drawn.refund_id as drawn_refund_id,
            now() as loaded_at,
            (select b.booked from (${bookedQuery('e.invoice_id = note.id')}) b where note.exchange_rate is not null) as entry_booked,
            note.*
       from drawn left join note on true`;
}

function refundBindings(orgId: number, req: { payment_id?: number; credit_note_id?: number }, rateDates: { from: string; to: string }) {
  return [orgId, orgId, req.payment_id ?? null, orgId, req.credit_note_id ?? null, orgId, rateDates.to, rateDates.from];
}

type LoadedRow = CashLoadRow<
  PaymentColumns & { table_rates: Array<{ date: string; rate: string }>; drawn_entry_id: number | null; drawn_refund_id: number | null }
>;

function stateOf(row: LoadedRow): RefundState {
  const {
    settings_held: settings,
    settings_version: _version,
    payment_json: json,
    payment_version: _paymentVersion,
    waited: _waited,
    allocations,
    refunds,
    table_rates: rates,
    drawn_entry_id: entryId,
    drawn_refund_id: refundId,
    loaded_at: now,
    entry_booked: booked,
    locked_version: _locked,
    seen_version: _seen,
    ...note
  } = row;
  const payment = json && paymentOfJson(json);
  return {
    settings,
    payment: payment && { row: payment, allocations, refunds },
    note: note.id === null ? null : note,
    booked,
    rates,
    ids: { refundId: refundId ?? 0, entryId: entryId ?? 0 },
    now,
  };
}

/**
 * The refund's state read under its locks (refundLoad `locked`); when the lock was waited for (a
 * commit changed the source meanwhile), read again holding it, so what the snapshot saw is current.
 */
export async function loadRefund(
  trx: Knex.Transaction,
  orgId: number,
  req: { payment_id?: number; credit_note_id?: number },
  rateDates: { from: string; to: string },
): Promise<RefundState> {
  for (let attempt = 1; ; attempt++) {
    const { rows } = await trx.raw<{ rows: LoadedRow[] }>(refundLoad('locked'), refundBindings(orgId, req, rateDates));
    if (!rows[0]!.waited || attempt === 3) return stateOf(rows[0]!);
  }
}

/** What an optimistic refund read and its store checks: the settings' versions and its source's xmin. */
export interface RefundRead {
  settings: string | null;
  source: string | null;
}

/** The same, read with no lock and no transaction, for the optimistic store (storeRefundAlone), with the versions it checks. */
export async function readRefund(
  db: Knex,
  orgId: number,
  req: { payment_id?: number; credit_note_id?: number },
  rateDates: { from: string; to: string },
): Promise<{ state: RefundState; read: RefundRead }> {
  const { rows } = await db.raw<{ rows: LoadedRow[] }>(refundLoad('read'), refundBindings(orgId, req, rateDates));
  const row = rows[0]!;
  return { state: stateOf(row), read: { settings: row.settings_version, source: row.payment_version ?? row.locked_version } };
}

/**
 * The source's part first (the payment's refunded total, or the credit note settled; with `read`,
 * only while it is the row read and the settings unchanged), then the refund and its entry under the
 * ids the load drew.
 */
function refundParts(plan: RefundPlan, read?: RefundRead): StorePart[] {
  const guarded = read !== undefined;
  const source: StorePart = plan.payment
    ? {
        sql: `update payments set refunded = ?::numeric
               where id = ?${guarded ? ' and xmin::text = ? and (select unchanged from store1) returning id' : ''}`,
        bindings: [plan.payment.refunded, plan.payment.id, ...(guarded ? [read.source ?? ''] : [])],
      }
    : settlementPart([plan.note!], {
        at: plan.note!.updated_at,
        ...(guarded ? { read: new Map([[plan.note!.id, read.source ?? '']]) } : {}),
      });
  const refund = plan.refund;
  const columns = Object.keys(refund) as Array<keyof typeof refund>;
  return [
    source,
    {
      sql: `insert into payment_refunds (${columns.map(() => '??').join(', ')}) values (${columns.map(() => '?').join(', ')})`,
      bindings: [...columns, ...columns.map((c) => refund[c] as Knex.Value)],
    },
    ...entryParts(plan.entryId, plan.entry, plan.lines),
  ];
}

/** Stores a decided refund (refundParts) with the statement that commits. */
export async function storeRefund(trx: Knex.Transaction, plan: RefundPlan, when: StoreMoment): Promise<void> {
  await storeAt(trx, refundParts(plan), when);
}

/**
 * The optimistic store of a refund decided on an unlocked read (readRefund), as the parts of one
 * statement (one-statement.ts): the settings held and checked (postingGuard, `store1`), the source
 * written only while it is the row read (`store2`: every allocation, refund or void of a payment, and
 * every settlement of a credit note, changes it), then the refund and its entry. `expects` holds when
 * the source was written: otherwise nothing of the statement stays, and the runtime refunds under the
 * locks.
 */
export function storeRefundAlone(plan: RefundPlan, read: RefundRead): { parts: StorePart[]; expects: string } {
  return {
    parts: [postingGuard(plan.entry.org_id, read.settings), ...refundParts(plan, read)],
    expects: '(select count(*) from store2) = 1',
  };
}
