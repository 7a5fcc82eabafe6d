import { invoicing } from '@bo/contracts';
import { currentTime } from '@bo/kernel';
import { handler, recordEvent, statementEvent, unlessRefused } from '@bo/runtime';
import { decideVoid } from './decide-void';
import { loadVoid, readVoid, storeVoid, storeVoidAlone } from './void.repository';

/**
 * Reverses a payment (decideVoid): its active allocations are voided, their documents owe again, and
 * a reversal entry mirrors what the payment's entries still stand for; nothing is deleted.
 *
 * Load → decide → store, optimistic as a rule: the settings, the payment, its allocations and
 * documents and the entry's id read with no lock (one statement), the void decided on them, and
 * stored as one statement (`alone`) that holds the settings and writes the payment and each document
 * only while they are as read. When one moved meanwhile, or the request is to be refused, the usual
 * way decides under the locks (`apply`). A bank line's unreconcile voids the payment it made by the
 * same decision and stores (undo.repository.ts).
 */
export const voidPaymentHandler = handler(invoicing.voidPayment, {
  alone: async (req, ctx) => {
    const { state, read } = await readVoid(ctx.db, ctx.orgId, req.payment_id);
    const plan = unlessRefused(() => decideVoid(state, req, { orgId: ctx.orgId, instant: currentTime() }));
    if (!plan) return undefined;
    return { ...storeVoidAlone(plan, read), events: [statementEvent(invoicing.paymentVoided, ctx.orgId, plan.event)], reply: plan.reply };
  },
  apply: async (req, ctx) => {
    const state = await loadVoid(ctx.db, ctx.orgId, req.payment_id);
    const plan = decideVoid(state, req, { orgId: ctx.orgId, instant: currentTime() });
    await storeVoid(ctx.db, plan, 'with commit');
    await recordEvent(ctx.db, invoicing.paymentVoided, ctx.orgId, plan.event);
    return plan.reply;
  },
});
