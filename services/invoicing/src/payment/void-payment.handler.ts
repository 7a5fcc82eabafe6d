import { invoicing } from '@bo/contracts';
import { currentTime } from '@bo/kernel';
import { handler, recordEvent, statementEvent, unlessRefused, type ApplyContext, type StoreMoment } from '@bo/runtime';
import type { ReplyOf, RequestOf } from '@bo/contracts';
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
 * way decides under the locks (`apply`, voidPayment).
 */
export const voidPaymentHandler = handler(invoicing.voidPayment, {
  alone: async (req, ctx) => {
    const { state, read } = await readVoid(ctx.db, ctx.orgId, req.payment_id);
    const plan = unlessRefused(() => decideVoid(state, req, { orgId: ctx.orgId, instant: currentTime() }));
    if (!plan) return undefined;
    return { ...storeVoidAlone(plan, read), events: [statementEvent(invoicing.paymentVoided, ctx.orgId, plan.event)], reply: plan.reply };
  },
  apply: async (req, ctx) => voidPayment(ctx, req, 'with commit'),
});

/**
 * The void under its locks, in the caller's transaction: shared with bank reconciliation, whose
 * unreconcile voids the payment it made and goes on writing (`when`: 'at once' then).
 */
export async function voidPayment(
  ctx: Pick<ApplyContext, 'db' | 'orgId'>,
  req: Omit<RequestOf<typeof invoicing.voidPayment>, 'org_id' | 'action'>,
  when: StoreMoment = 'at once',
): Promise<ReplyOf<typeof invoicing.voidPayment>> {
  const state = await loadVoid(ctx.db, ctx.orgId, req.payment_id);
  const plan = decideVoid(state, req, { orgId: ctx.orgId, instant: currentTime() });
  await storeVoid(ctx.db, plan, when);
  await recordEvent(ctx.db, invoicing.paymentVoided, ctx.orgId, plan.event);
  return plan.reply;
}
