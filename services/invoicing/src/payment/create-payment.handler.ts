import { invoicing } from '@bo/contracts';
import { currentTime } from '@bo/kernel';
import { handler, recordEvent, statementEvent, unlessRefused, type ApplyContext } from '@bo/runtime';
import { requireLivePartner, requirePartnerRole } from '@bo/billing';
import type { ReplyOf } from '@bo/contracts';
import { INVOICE_OF_DIRECTION } from '../domain/cash';
import { rateWindow } from '../invoice/decide-registration';
import { decideNewPayment, type NewPaymentRequest } from './decide-new-payment';
import { loadNewPayment, readNewPayment, storeNewPayment, storeNewPaymentAlone } from './new-payment.repository';

/**
 * A payment received (`in`) or sent (`out`), allocated at once to the documents named; what is left
 * is the partner's credit. The partner is checked first, with no transaction open (it may ask the
 * partners service and remember the answer: a read). Then load → decide (decide-new-payment.ts) →
 * store, optimistic as a rule: the settings, the documents, what they booked, the rates and the ids
 * drawn read with no lock (one statement), and stored as one statement (`alone`) that holds the
 * settings and settles each document only while both are as read. When one moved meanwhile, or the
 * request is to be refused, the usual way decides under the locks (`apply`, recordPayment).
 */
export const createPaymentHandler = handler(invoicing.createPayment, {
  gather: async (req, ctx) => {
    const partner = await requireLivePartner(ctx, req.partner);
    requirePartnerRole(partner, INVOICE_OF_DIRECTION[req.direction]);
    return {};
  },
  readOnlyGather: true,
  alone: async (req, ctx) => {
    const instant = currentTime();
    const { state, read } = await readNewPayment(ctx.db, ctx.orgId, req, rateWindow(req.payment_date, instant));
    const plan = unlessRefused(() => decideNewPayment(state, req, { ...payer(ctx), instant }));
    if (!plan) return undefined;
    return {
      ...storeNewPaymentAlone(plan, ctx.orgId, read),
      events: [statementEvent(invoicing.paymentCreated, ctx.orgId, plan.event)],
      reply: plan.reply,
    };
  },
  apply: async (req, ctx) => recordPayment(ctx, req),
});

function payer(ctx: Pick<ApplyContext, 'orgId' | 'operationKey' | 'userId'>) {
  return { orgId: ctx.orgId, operationKey: ctx.operationKey ?? null, userId: ctx.userId ?? null };
}

/** The payment's write the locked way, after the partner was checked: load under the locks, decide, store with the commit. */
async function recordPayment(
  ctx: Pick<ApplyContext, 'db' | 'orgId' | 'operationKey' | 'userId'>,
  req: NewPaymentRequest,
): Promise<ReplyOf<typeof invoicing.createPayment>> {
  const instant = currentTime();
  const state = await loadNewPayment(ctx.db, ctx.orgId, req, rateWindow(req.payment_date, instant));
  const plan = decideNewPayment(state, req, { ...payer(ctx), instant });
  await storeNewPayment(ctx.db, plan, 'with commit');
  await recordEvent(ctx.db, invoicing.paymentCreated, ctx.orgId, plan.event);
  return plan.reply;
}
