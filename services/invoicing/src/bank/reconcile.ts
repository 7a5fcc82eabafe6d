import { currentTime } from '@bo/kernel';
import { recordEvent, storeAt, type ApplyContext, type StoreMoment } from '@bo/runtime';
import { invoicing } from '@bo/contracts';
import { rateWindow } from '../invoice/decide-registration';
import { loadNewPayment, storeNewPayment } from '../payment/new-payment.repository';
import { decideReconcile, lineDate, postsEntry, reconcileWayOf, type ReconcileAsked, type ReconcilePlan } from './decide-reconcile';
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
