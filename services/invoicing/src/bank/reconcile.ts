import { currentTime, dec, formatDate } from '@bo/kernel';
import { recordEvent, storeAt, type ApplyContext, type StoreMoment } from '@bo/runtime';
import { invoicing } from '@bo/contracts';
import { postEntry } from '../invoice/journal.repository';
import { rateWindow } from '../invoice/decide-registration';
import { loadNewPayment, storeNewPayment } from '../payment/new-payment.repository';
import { voidPayment } from '../payment/void-payment.handler';
import type { ReconciliationRow, LineRow } from './bank.repository';
import {
  BANK_JOURNAL,
  decideReconcile,
  lineDate,
  postsEntry,
  reconcileWayOf,
  type ReconcileAsked,
  type ReconcilePlan,
} from './decide-reconcile';
import { reopenPaidBills } from './payment-files';
import { loadReconcile, reconcileParts } from './reconcile.repository';

export { BANK_JOURNAL, paymentAmountOf } from './decide-reconcile';

type Ctx = Pick<ApplyContext, 'db' | 'orgId' | 'userId'>;

/**
 * Reconciles one line, exactly once, the locked way: the request's way judged, then the line (and a
 * payment it links) loaded under its lock, with the documents and settings a payment made of its
 * money takes (create-payment's own load, loadNewPayment); decided (decideReconcile) and stored. One
 * active reconciliation per line is also held by a unique index. The payment is made under an
 * operation key of the reconciliation, so a line's payment exists once however the request is
 * retried. `when`: with the statement that commits (a reconcile by hand), or at once (import, whose
 * next line's reconcile reads what this one settled).
 */
export async function reconcileLine(ctx: Ctx, req: ReconcileAsked, when: StoreMoment): Promise<ReconcilePlan> {
  const db = ctx.db;
  const way = reconcileWayOf(req);
  const instant = currentTime();
  const load = await loadReconcile(db, ctx.orgId, req, postsEntry(way, req));
  const makesPayment = way === 'allocations' || way === 'credit';
  const newPayment =
    makesPayment && load.line
      ? await loadNewPayment(
          db,
          ctx.orgId,
          { currency: load.line.currency, allocations: req.allocations },
          rateWindow(lineDate(load.line), instant),
        )
      : undefined;
  const plan = decideReconcile(req, { ...load, newPayment }, { orgId: ctx.orgId, userId: ctx.userId ?? null, instant });
  if (plan.payment) {
    await storeNewPayment(db, plan.payment, when);
    await recordEvent(db, invoicing.paymentCreated, ctx.orgId, plan.payment.event);
  }
  await storeAt(db, reconcileParts(plan), when);
  return plan;
}

/**
 * Undoes a line's active reconciliation (decideUnreconcile's `undo`), the line locked by the caller:
 * voids the payment it made (a linked one stays), reverses its own posting, puts the bills it paid
 * back in payment, and opens the line again.
 */
export async function undoReconciliation(
  ctx: Ctx,
  line: LineRow,
  rec: Pick<ReconciliationRow, 'id' | 'payment_id' | 'made_payment' | 'journal_entry_id'>,
): Promise<void> {
  const db = ctx.db;
  if (rec.made_payment && rec.payment_id !== null) {
    await voidPayment(ctx, { payment_id: rec.payment_id, reason: `Bank line ${line.id} unreconciled` });
  }
  if (rec.journal_entry_id !== null) {
    const posted = (await db('journal_lines').where({ entry_id: rec.journal_entry_id }).orderBy('id')) as {
      account: string;
      debit: string;
      credit: string;
      label: string;
    }[];
    await postEntry(
      db,
      {
        org_id: ctx.orgId,
        invoice_id: null,
        payment_id: null,
        kind: 'bank',
        journalname: BANK_JOURNAL,
        journaldate: formatDate(line.booking_date) ?? '',
        reference: `Undo bank line ${line.id}`,
      },
      posted.map((p) => ({ account: p.account, debit: dec(p.credit), credit: dec(p.debit), label: `Undo: ${p.label}`.slice(0, 100) })),
    );
  }
  await reopenPaidBills(db, ctx.orgId, line.id);
  await db('bank_reconciliations').where({ id: rec.id }).update({ status: 'undone', undone_at: db.fn.now() });
  await db('bank_lines').where({ id: line.id }).update({ status: 'unmatched' });
}
