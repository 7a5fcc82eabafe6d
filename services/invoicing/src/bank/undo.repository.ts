import { exactJson, storeAt, type Knex, type OneStatementWrite, type StoreMoment, type StorePart } from '@bo/runtime';
import { entryParts } from '../invoice/journal.repository';
import { postingGuard } from '../invoice/validation.repository';
import {
  readOf as voidReadOf,
  stateOf as voidStateOf,
  storeVoid,
  storeVoidAlone,
  voidLoad,
  type LoadedRow as VoidRow,
  type VoidRead,
} from '../payment/void.repository';
import type { ActiveReconciliation, LineRow } from './bank.repository';
import type { PostedLine, UndoPlan, UnreconcileLoad } from './decide-undo';

/**
 * An unreconcile's own SQL (decide-undo.ts): its load, and its rows as the parts of a store. The
 * void of the payment a reconciliation made is the payments' own: read by void.repository.ts's load
 * inside this one, stored by its parts.
 */

const LINE_INTS = ['id', 'org_id', 'statement_id'];

/**
 * Everything opening a line again decides on, in one statement: the line and its active
 * reconciliation; the payment it made, with all the void decides on (voidLoad, nested: the settings,
 * the payment, its allocations, refunds and documents, the void's entry id drawn, the time); the
 * lines of the entry it posted, the bills the line paid, and the reversal's entry id drawn after the
 * void's, so the two post in the order they did. `locked`: the settings held first (as every posting
 * takes them), then the line locked, then the payment and its documents (voidLoad `locked`); the
 * line's row version as the statement's snapshot saw it beside it, to read again a line whose lock
 * was waited for. `read`: all of it as it stands, with no lock, with the versions an optimistic store
 * checks. One row per document the void settles again, at least one.
 */
function unreconcileLoad(mode: 'read' | 'locked'): string {
  const locked = mode === 'locked';
  return `with ${locked ? 'settings_first as materialized (select 1 from organization_settings_held(?::int)),' : ''}
          line as materialized (
            select l.*, l.xmin::text as read_version,
                   ${locked ? '(select s.xmin::text from bank_lines s where s.id = l.id)' : 'l.xmin::text'} as seen_version
              from bank_lines l
             where l.org_id = ? and l.id = ?${locked ? ' and (select count(*) from settings_first) >= 0 for update of l' : ''}),
          rec as materialized (
            select r.id, r.payment_id, r.made_payment, r.journal_entry_id
              from bank_reconciliations r where r.line_id = (select id from line) and r.status = 'active'),
          voided as materialized (
            ${voidLoad(mode, `(select r.payment_id from rec r where r.made_payment)`)}),
          undo_drawn as materialized (
            select case when exists (select 1 from line where status = 'reconciled')
                         and (select r.journal_entry_id from rec r) is not null
                        then nextval(pg_get_serial_sequence('journal_entries', 'id'))::int end as entry_id
             where (select count(*) from voided) >= 0)
     select (select ${exactJson('l', LINE_INTS)} - 'read_version' - 'seen_version' from line l) as bank_line,
            (select l.read_version from line l) as bank_line_version,
            coalesce((select l.read_version is distinct from l.seen_version from line l), false) as bank_line_waited,
            (select json_build_object('id', r.id, 'payment_id', r.payment_id, 'made_payment', r.made_payment,
                                      'journal_entry_id', r.journal_entry_id) from rec r) as bank_reconciliation,
            coalesce((select json_agg(json_build_object('account', j.account, 'debit', j.debit::text, 'credit', j.credit::text,
                                                        'label', j.label) order by j.id)
                        from journal_lines j where j.entry_id = (select r.journal_entry_id from rec r)), '[]') as reversed_lines,
            coalesce((select json_agg(b.id order by b.id) from payment_file_bills b
                       where b.org_id = (select org_id from line) and b.line_id = (select id from line) and b.status = 'paid'), '[]') as paid_bills,
            undo_drawn.entry_id as undo_entry_id,
            v.*
       from undo_drawn cross join voided v
      order by v.id`;
}

type LoadedRow = VoidRow & {
  bank_line: LineRow | null;
  bank_line_version: string | null;
  bank_line_waited: boolean;
  bank_reconciliation: ActiveReconciliation | null;
  reversed_lines: PostedLine[];
  paid_bills: number[];
  undo_entry_id: number | null;
};

/** What an optimistic unreconcile read and its store checks: the line's xmin, and what the void's store checks (the settings' versions among them). */
export interface UnreconcileRead {
  line: string | null;
  void: VoidRead;
}

function bindings(orgId: number, lineId: number, mode: 'read' | 'locked'): Knex.RawBinding[] {
  return [...(mode === 'locked' ? [orgId] : []), orgId, lineId, orgId, orgId];
}

function loadOf(rows: LoadedRow[]): UnreconcileLoad {
  const first = rows[0]!;
  // The void's columns come first in each row's own order; what is ours is set apart.
  const voidRows = rows.map(
    ({
      bank_line: _line,
      bank_line_version: _version,
      bank_line_waited: _waited,
      bank_reconciliation: _rec,
      reversed_lines: _posted,
      paid_bills: _bills,
      undo_entry_id: _entry,
      ...row
    }) => row,
  );
  return {
    line: first.bank_line ? { line: first.bank_line, reconciliation: first.bank_reconciliation } : undefined,
    void: voidStateOf(voidRows),
    posted: first.reversed_lines,
    bills: first.paid_bills,
    entryId: first.undo_entry_id,
  };
}

/** An unreconcile's load (unreconcileLoad) read with no lock and no transaction, for an optimistic store (undoAlone, lineStatusAlone), with the versions it checks. */
export async function readUnreconcile(db: Knex, orgId: number, lineId: number): Promise<{ load: UnreconcileLoad; read: UnreconcileRead }> {
  const { rows } = await db.raw<{ rows: LoadedRow[] }>(unreconcileLoad('read'), bindings(orgId, lineId, 'read'));
  return { load: loadOf(rows), read: { line: rows[0]!.bank_line_version, void: voidReadOf(rows) } };
}

/**
 * An unreconcile's load under its locks (unreconcileLoad `locked`). What the statement reads beside
 * the rows it locks is as its snapshot, taken before any wait for a lock, saw it: when a lock was
 * waited for (a commit changed the line, the payment or a document meanwhile), it is read again,
 * holding them.
 */
export async function loadUnreconcile(trx: Knex.Transaction, orgId: number, lineId: number): Promise<UnreconcileLoad> {
  for (let attempt = 1; ; attempt++) {
    const { rows } = await trx.raw<{ rows: LoadedRow[] }>(unreconcileLoad('locked'), bindings(orgId, lineId, 'locked'));
    const first = rows[0]!;
    if (!(first.bank_line_waited || first.waited) || attempt === 3) return loadOf(rows);
  }
}

/**
 * The undo's own rows as parts of a store, the void excepted: the reversal entry, the bills back in
 * payment, the reconciliation undone, the line `unmatched`. With `guard` (an optimistic store), each
 * row is written only while it is as read, and answers its id: the bills while the line still paid
 * them, the reconciliation while active, the line while its xmin is the one read and the settings
 * (the guard's part `settings`) are unchanged. `counted`: the parts whose rows a guarded store
 * counts, by index, with the count it expects.
 */
function undoParts(plan: UndoPlan, guard?: { line: string; settings: string }): { parts: StorePart[]; counted: Array<[number, number]> } {
  const orgId = plan.line.org_id;
  const rec = plan.reconciliation;
  const returning = guard ? ' returning id' : '';
  const parts: StorePart[] = plan.reversal ? entryParts(plan.reversal.id, plan.reversal.header, plan.reversal.lines) : [];
  const counted: Array<[number, number]> = [];
  const add = (part: StorePart, rows: number) => {
    counted.push([parts.length, rows]);
    parts.push(part);
  };
  if (plan.bills.length)
    add(
      {
        sql: `update payment_file_bills set status = 'in_payment', line_id = null
               where org_id = ? and id = any(?::int[]) and line_id = ? and status = 'paid'${returning}`,
        bindings: [orgId, plan.bills, plan.line.id],
      },
      plan.bills.length,
    );
  add(
    {
      sql: `update bank_reconciliations set status = 'undone', undone_at = ? where id = ?${guard ? " and status = 'active'" : ''}${returning}`,
      bindings: [rec.undone_at, rec.id],
    },
    1,
  );
  add(
    {
      sql: `update bank_lines set status = 'unmatched' where id = ?${
        guard ? ` and xmin::text = ? and (select unchanged from ${guard.settings})` : ''
      }${returning}`,
      bindings: [plan.line.id, ...(guard ? [guard.line] : [])],
    },
    1,
  );
  return { parts, counted };
}

/**
 * Stores an undo decided under the locks, in the runtime's transaction: the void as the payments'
 * void stores it (storeVoid), then the undo's own rows; nothing of them fails for a reason it would
 * answer.
 */
export async function storeUndo(trx: Knex.Transaction, plan: UndoPlan, when: StoreMoment): Promise<void> {
  if (plan.void) await storeVoid(trx, plan.void, when);
  await storeAt(trx, undoParts(plan).parts, when);
}

/**
 * The optimistic store of an undo decided on an unlocked read (readUnreconcile), as the parts of one
 * statement (one-statement.ts). With a payment the reconciliation made: the void as the payments'
 * void stores it alone, first (storeVoidAlone: the settings held and checked as `store1`, the payment
 * voided only while it is the row read, each document owing again only while it is as read); without
 * one, the settings held and checked alone (postingGuard, `store1`). Then the undo's own rows, each
 * only while it is as read (undoParts). `expects` holds when every guarded row was written: otherwise
 * nothing of the statement stays, and the runtime undoes under the locks.
 */
export function undoAlone(plan: UndoPlan, read: UnreconcileRead): Pick<OneStatementWrite, 'parts' | 'expects'> {
  if (read.line === null) throw new Error('an undo is stored on the line its read read');
  const voided = plan.void ? storeVoidAlone(plan.void, read.void) : undefined;
  const first = voided ? voided.parts : [postingGuard(plan.line.org_id, read.void.settings)];
  const own = undoParts(plan, { line: read.line, settings: 'store1' });
  // Ours follow the void's: their CTEs are numbered on from its parts (store<n>).
  const checks = [
    ...(voided ? [`(${voided.expects})`] : []),
    ...own.counted.map(([i, rows]) => `(select count(*) from store${first.length + i + 1}) = ${rows}`),
  ];
  return { parts: [...first, ...own.parts], expects: checks.join(' and ') };
}
