import { invoicing } from '@bo/contracts';
import { currentTime } from '@bo/kernel';
import { handler, recordEvent, type ApplyContext, type StoreMoment } from '@bo/runtime';
import { requireLivePartner, requirePartnerRole } from '@bo/billing';
import type { ReplyOf } from '@bo/contracts';
import { INVOICE_OF_DIRECTION } from '../domain/cash';
import { rateWindow } from '../invoice/decide-registration';
import { decideNewPayment, type NewPaymentRequest } from './decide-new-payment';
import { loadNewPayment, storeNewPayment } from './new-payment.repository';

/**
 * A payment received (`in`) or sent (`out`), allocated at once to the documents named; what is left
 * is the partner's credit. The partner is checked first, with no transaction open (it may ask the
 * partners service); then load (the settings held, the documents locked, what they booked, the rates,
 * the ids drawn: one statement) → decide (decide-new-payment.ts) → store (the payment, its entry, its
 * allocations, the documents settled, with the event and the recorded reply: the statement that commits).
 */
export const createPaymentHandler = handler(invoicing.createPayment, {
  gather: async (req, ctx) => {
    const partner = await requireLivePartner(ctx, req.partner);
    requirePartnerRole(partner, INVOICE_OF_DIRECTION[req.direction]);
    return {};
  },
  apply: async (req, ctx) => recordPayment(ctx, req),
});

/**
 * The payment's write, after the partner was checked. Bank reconciliation (bank/reconcile.ts) records
 * the payments of statement lines through it, storing `at once`: it goes on to write rows naming the
 * payment in the same transaction.
 */
export async function recordPayment(
  ctx: Pick<ApplyContext, 'db' | 'orgId' | 'operationKey' | 'userId'>,
  req: NewPaymentRequest,
  store: StoreMoment = 'with commit',
): Promise<ReplyOf<typeof invoicing.createPayment>> {
  const instant = currentTime();
  const state = await loadNewPayment(ctx.db, ctx.orgId, req, rateWindow(req.payment_date, instant));
  const plan = decideNewPayment(state, req, {
    orgId: ctx.orgId,
    operationKey: ctx.operationKey ?? null,
    userId: ctx.userId ?? null,
    instant,
  });
  await storeNewPayment(ctx.db, plan, store);
  await recordEvent(ctx.db, invoicing.paymentCreated, ctx.orgId, plan.event);
  return plan.reply;
}
