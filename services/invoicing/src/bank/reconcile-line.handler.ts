import { invoicing } from '@bo/contracts';
import { currentTime } from '@bo/kernel';
import { handler, statementEvent, unlessRefused } from '@bo/runtime';
import { requireLivePartner } from '@bo/billing';
import { rateWindow } from '../invoice/decide-registration';
import { readNewPayment } from '../payment/new-payment.repository';
import { decideReconcile, isOpenLine, lineDate, postsEntry, reconcileWayOf } from './decide-reconcile';
import { reconcileLine } from './reconcile';
import { readReconcile, reconcileAlone } from './reconcile.repository';

/**
 * Reconciles a line by hand: a payment of its money allocated to the documents named (or the
 * partner's credit), a posted payment already recorded, or a posting to an account.
 *
 * The partner asked is checked first, with no transaction open (a read, as create-payment checks
 * it). Then load → decide (decideReconcile) → store, optimistic as a rule: the line, the settings,
 * the payment a link names and the ids drawn read with no lock (one statement), and for a payment
 * made of the line's money what create-payment's own load reads (readNewPayment, a second one);
 * stored as one statement (`alone`) that writes the line only while it is the row read, and the
 * payment made, the payment linked or the posting only while the settings, documents and payment
 * they were decided on are as read. When anything moved meanwhile, or the request is to be refused,
 * the usual way decides under the locks (`apply`, reconcileLine), and refuses as before.
 */
export const reconcileBankLineHandler = handler(invoicing.reconcileBankLine, {
  gather: async (req, ctx) => {
    if (req.partner !== undefined) await requireLivePartner(ctx, req.partner);
    return {};
  },
  readOnlyGather: true,
  alone: async (req, ctx) => {
    const way = unlessRefused(() => reconcileWayOf(req));
    if (!way) return undefined;
    const instant = currentTime();
    const { load, read } = await readReconcile(ctx.db, ctx.orgId, req, postsEntry(way, req));
    const line = load.line;
    if (!line || !read || !isOpenLine(line)) return undefined;
    const made =
      way === 'allocations' || way === 'credit'
        ? await readNewPayment(
            ctx.db,
            ctx.orgId,
            { currency: line.currency, allocations: req.allocations },
            rateWindow(lineDate(line), instant),
          )
        : undefined;
    const plan = unlessRefused(() =>
      decideReconcile(req, { ...load, newPayment: made?.state }, { orgId: ctx.orgId, userId: ctx.userId ?? null, instant }),
    );
    if (!plan) return undefined;
    return {
      ...reconcileAlone(plan, read, made?.read),
      events: plan.payment ? [statementEvent(invoicing.paymentCreated, ctx.orgId, plan.payment.event)] : [],
      reply: plan.reply,
    };
  },
  apply: async (req, ctx) => (await reconcileLine(ctx, req, 'with commit')).reply,
});
