import { invoicing } from '@bo/contracts';
import { currentTime } from '@bo/kernel';
import { handler, recordEvent } from '@bo/runtime';
import { decidePaymentRegistration, rateWindow } from './decide-registration';
import { loadRegistration, storeRegistration } from './registration.repository';

/**
 * Load (the settings held, the invoice locked, what it booked, its rates, the ids drawn: one
 * statement) → decide (decide-registration.ts) → store (the payment, its entry and allocation, the
 * invoice paid, with the events and the recorded reply: the statement that commits).
 */
export const registerPaymentHandler = handler(invoicing.registerPayment, async (req, ctx) => {
  return ctx.db.transaction(async (trx) => {
    const instant = currentTime();
    const state = await loadRegistration(trx, ctx.orgId, req.id, rateWindow(req.payment_date, instant));
    const plan = decidePaymentRegistration(state, req, {
      orgId: ctx.orgId,
      operationKey: ctx.operationKey ?? null,
      userId: ctx.userId ?? null,
      instant,
    });
    await storeRegistration(trx, plan);
    await recordEvent(trx, invoicing.invoicePaymentRegistered, ctx.orgId, plan.events.registered);
    if (plan.events.paid) await recordEvent(trx, invoicing.invoicePaid, ctx.orgId, plan.events.paid);
    return plan.reply;
  });
});
