import type { Knex, OneStatementWrite, StorePart } from '@bo/runtime';
import { HELD_SETTINGS_CTE } from '@bo/billing';
import { entryParts } from '../invoice/journal.repository';
import { postingGuard, READ_SETTINGS_VERSION } from '../invoice/validation.repository';
import { storeNewPaymentAlone, type NewPaymentRead } from '../payment/new-payment.repository';
import type { LineRow } from './bank.repository';
import type { LinkedPayment, ReconcileLoad, ReconcilePlan } from './decide-reconcile';

/**
 * A reconcile's own SQL (decide-reconcile.ts): its load, and its rows as the parts of a store. The
 * payment it makes is create-payment's, read and stored by new-payment.repository.ts.
 */

/**
 * Everything a reconcile decides on but the payment it makes, in one statement: the organization's
 * settings (its accounting currency, and their versions), the line, the payment a link names with
 * the line it is linked to already, and, for a line found, the reconciliation's id and the id of the
 * entry it posts (`postsEntry`) drawn. `locked`: the settings held (their lock taken shared first,
 * as every posting takes it), then the line and the payment locked; the line's row version as the
 * statement's snapshot saw it beside it (`seen_version`), to read again a line whose lock was waited
 * for. `read`: all of it as it stands, with no lock, with the versions an optimistic store checks.
 */
function reconcileLoad(mode: 'read' | 'locked'): string {
  const locked = mode === 'locked';
  return `with ${locked ? HELD_SETTINGS_CTE : 'held as materialized (select * from organization_settings where org_id = ?::int)'},
          line as materialized (
            select l.*, l.xmin::text as read_version,
                   ${locked ? '(select s.xmin::text from bank_lines s where s.id = l.id)' : 'l.xmin::text'} as seen_version
              from bank_lines l where l.org_id = ? and l.id = ? and (select count(*) from held) >= 0${locked ? ' for update of l' : ''}),
          pay as materialized (
            select p.id, p.status, p.direction, p.amount::text as amount, p.currency, p.xmin::text as read_version
              from payments p where p.org_id = ? and p.id = ?::int and exists (select 1 from line)${locked ? ' for update of p' : ''}),
          drawn as materialized (
            select nextval(pg_get_serial_sequence('bank_reconciliations', 'id'))::int as reconciliation_id,
                   case when ?::boolean then nextval(pg_get_serial_sequence('journal_entries', 'id'))::int end as entry_id
              from line)
     select line.*, (select h.default_currency from held h) as accounting_currency, ${READ_SETTINGS_VERSION} as settings_version,
            (select json_build_object('id', pay.id, 'status', pay.status, 'direction', pay.direction, 'amount', pay.amount,
                                      'currency', pay.currency,
                                      'reconciledWith', (select r.line_id from bank_reconciliations r
                                                          where r.payment_id = pay.id and r.status = 'active' limit 1))
               from pay) as payment,
            (select pay.read_version from pay) as payment_version,
            drawn.reconciliation_id as drawn_reconciliation_id, drawn.entry_id as drawn_entry_id
       from line cross join drawn`;
}

type LoadedRow = LineRow & {
  read_version: string;
  seen_version: string;
  accounting_currency: string | null;
  settings_version: string | null;
  payment: LinkedPayment | null;
  payment_version: string | null;
  drawn_reconciliation_id: number;
  drawn_entry_id: number | null;
};

/** What an optimistic reconcile read and its store checks: the settings' versions, the line's xmin and the linked payment's. */
export interface ReconcileRead {
  settings: string | null;
  line: string;
  payment: string | null;
}

function bindings(orgId: number, req: { line_id: number; payment_id?: number }, drawsEntry: boolean): Knex.RawBinding[] {
  return [orgId, orgId, req.line_id, orgId, req.payment_id ?? null, drawsEntry];
}

function loadOf(row: LoadedRow | undefined): { load: ReconcileLoad; read: ReconcileRead | undefined } {
  if (!row)
    return {
      load: { line: undefined, payment: undefined, accountingCurrency: null, ids: { reconciliationId: 0, entryId: null } },
      read: undefined,
    };
  const {
    read_version: read,
    seen_version: _seen,
    accounting_currency: accountingCurrency,
    settings_version: settings,
    payment,
    payment_version: paymentVersion,
    drawn_reconciliation_id: reconciliationId,
    drawn_entry_id: entryId,
    ...line
  } = row;
  return {
    load: { line, payment: payment ?? undefined, accountingCurrency, ids: { reconciliationId, entryId } },
    read: { settings, line: read, payment: paymentVersion },
  };
}

/** A reconcile's load (reconcileLoad) read with no lock and no transaction, for an optimistic store (reconcileAlone), with the versions it checks. */
export async function readReconcile(
  db: Knex,
  orgId: number,
  req: { line_id: number; payment_id?: number },
  drawsEntry: boolean,
): Promise<{ load: ReconcileLoad; read: ReconcileRead | undefined }> {
  const { rows } = await db.raw<{ rows: LoadedRow[] }>(reconcileLoad('read'), bindings(orgId, req, drawsEntry));
  return loadOf(rows[0]);
}

/**
 * A reconcile's load under its locks (reconcileLoad `locked`); a line whose lock was waited for (a
 * commit changed it meanwhile) is read again holding it. The line a linked payment is reconciled with
 * is read once the payment's lock is held, in a statement of its own: linking it changes no row of the
 * payment, so the load's snapshot, taken before a wait for that lock, may not show the link.
 */
export async function loadReconcile(
  trx: Knex.Transaction,
  orgId: number,
  req: { line_id: number; payment_id?: number },
  drawsEntry: boolean,
): Promise<ReconcileLoad> {
  for (let attempt = 1; ; attempt++) {
    const { rows } = await trx.raw<{ rows: LoadedRow[] }>(reconcileLoad('locked'), bindings(orgId, req, drawsEntry));
    const row = rows[0];
    if (row && row.read_version !== row.seen_version && attempt < 3) continue;
    const { load } = loadOf(row);
    if (!load.payment) return load;
    const taken = await trx<{ line_id: number; payment_id: number; status: string }>('bank_reconciliations')
      .where({ payment_id: load.payment.id, status: 'active' })
      .first('line_id');
    return { ...load, payment: { ...load.payment, reconciledWith: taken?.line_id ?? null } };
  }
}

/**
 * The reconciliation's own rows as parts of a store: the line reconciled (with `guard`, only while it
 * is the row read and, when `settings` names the guard's part, the settings are unchanged: it then
 * answers its id), the reconciliation, the bills it paid, and the entry it posts.
 */
function reconciliationParts(plan: ReconcilePlan, guard?: { line: string; settings?: string }): StorePart[] {
  const rec = plan.reconciliation;
  return [
    {
      sql: `update bank_lines set status = 'reconciled' where id = ?${
        guard ? ` and xmin::text = ?${guard.settings ? ` and (select unchanged from ${guard.settings})` : ''} returning id` : ''
      }`,
      bindings: [plan.line.id, ...(guard ? [guard.line] : [])],
    },
    {
      sql: `insert into bank_reconciliations (id, org_id, line_id, payment_id, made_payment, journal_entry_id) values (?, ?, ?, ?, ?, ?)`,
      bindings: [rec.id, rec.org_id, rec.line_id, rec.payment_id, rec.made_payment, rec.journal_entry_id],
    },
    ...(plan.paidBills.length
      ? [
          {
            sql: `update payment_file_bills set status = 'paid', line_id = ?
                   where org_id = ? and status = 'in_payment' and invoice_id = any(?::int[])`,
            bindings: [plan.line.id, rec.org_id, plan.paidBills],
          },
        ]
      : []),
    ...(plan.entry ? entryParts(plan.entry.id, plan.entry.header, plan.entry.lines) : []),
  ];
}

/**
 * The rows of a reconcile decided under the locks, the payment it makes excepted (new-payment.repository.ts
 * storeNewPayment stores that), as the parts of a store: nothing of them fails for a reason it would answer.
 */
export function reconcileParts(plan: ReconcilePlan): StorePart[] {
  return reconciliationParts(plan);
}

/**
 * The optimistic store of a reconcile decided on an unlocked read (readReconcile, and readNewPayment
 * for the payment it makes), as the parts of one statement (one-statement.ts). By way:
 * - `allocations`, `credit`: the payment as create-payment stores it alone (storeNewPaymentAlone: the
 *   settings held and checked as `store1`, each document settled only while it is as read), then the
 *   line reconciled only while it is as read and the settings unchanged, and the rest.
 * - `payment`: the line reconciled only while it is as read (`store1`), then the payment locked only
 *   while it is as read (`store2`: a void changes it), and the reconciliation. Another line linking it
 *   meanwhile meets the unique index of active reconciliations by payment.
 * - `account`: the settings held and checked (postingGuard, `store1`), the line reconciled only while
 *   it is as read and they are unchanged (`store2`), the reconciliation and the posting.
 * `expects` holds when every guarded row was written: otherwise nothing of the statement stays, and
 * the runtime reconciles under the locks.
 */
export function reconcileAlone(
  plan: ReconcilePlan,
  read: ReconcileRead,
  paymentRead: NewPaymentRead | undefined,
): Pick<OneStatementWrite, 'parts' | 'expects'> {
  const orgId = plan.reconciliation.org_id;
  if (plan.payment) {
    if (!paymentRead) throw new Error('a payment made alone is stored on what its read read');
    const made = storeNewPaymentAlone(plan.payment, orgId, paymentRead);
    const line = made.parts.length + 1;
    return {
      parts: [...made.parts, ...reconciliationParts(plan, { line: read.line, settings: 'store1' })],
      expects: `(${made.expects}) and (select count(*) from store${line}) = 1`,
    };
  }
  if (plan.way === 'payment') {
    const [line, ...rest] = reconciliationParts(plan, { line: read.line });
    return {
      parts: [
        line!,
        {
          sql: `select p.id from payments p where p.id = ? and p.xmin::text = ? and (select count(*) from store1) = 1 for update of p`,
          bindings: [plan.reconciliation.payment_id, read.payment ?? ''],
        },
        ...rest,
      ],
      expects: '(select count(*) from store1) = 1 and (select count(*) from store2) = 1',
    };
  }
  return {
    parts: [postingGuard(orgId, read.settings), ...reconciliationParts(plan, { line: read.line, settings: 'store1' })],
    expects: '(select count(*) from store2) = 1',
  };
}
