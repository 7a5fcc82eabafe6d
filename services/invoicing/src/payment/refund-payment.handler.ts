import { invoicing } from '@bo/contracts';
import { currentTime } from '@bo/kernel';
import { handler, recordEvent, statementEvent, unlessRefused } from '@bo/runtime';
import { rateWindow } from '../invoice/decide-registration';
import { decideRefund } from './decide-refund';
import { loadRefund, readRefund, storeRefund, storeRefundAlone } from './refund.repository';

/**
 * Pays out (part of) a partner's unallocated credit: a payment's rest or a validated credit note's
 * (decideRefund). Load → decide → store, optimistic as a rule: the settings, the source, the rates
 * and the ids drawn read with no lock (one statement), the refund decided on them, and stored as one
 * statement (`alone`) that holds the settings and writes the source only while both are as read;
 * when either moved meanwhile, or the request is to be refused, the usual way decides under the
 * locks (`apply`).
 */
export const refundPaymentHandler = handler(invoicing.refundPayment, {
  alone: async (req, ctx) => {
    const instant = currentTime();
    const { state, read } = await readRefund(ctx.db, ctx.orgId, req, rateWindow(req.refund_date, instant));
    const plan = unlessRefused(() => decideRefund(state, req, refunder(ctx, instant)));
    if (!plan) return undefined;
    return {
      ...storeRefundAlone(plan, read),
      events: [statementEvent(invoicing.paymentRefunded, ctx.orgId, plan.event)],
      reply: plan.reply,
    };
  },
  apply: async (req, ctx) => {
    const instant = currentTime();
    const state = await loadRefund(ctx.db, ctx.orgId, req, rateWindow(req.refund_date, instant));
    const plan = decideRefund(state, req, refunder(ctx, instant));
    await storeRefund(ctx.db, plan, 'with commit');
    await recordEvent(ctx.db, invoicing.paymentRefunded, ctx.orgId, plan.event);
    return plan.reply;
  },
});

function refunder(ctx: { orgId: number; operationKey?: string; userId?: string }, instant: Date) {
  return { orgId: ctx.orgId, instant, operationKey: ctx.operationKey ?? null, userId: ctx.userId ?? null };
}
