import { invoicing } from '@bo/contracts';
import { currentTime } from '@bo/kernel';
import { handler, recordEvent, statementEvent, unlessRefused } from '@bo/runtime';
import { decidePaymentRegistration, rateWindow, type PaymentRegistrationPlan } from './decide-registration';
import { loadRegistration, readRegistration, storeRegistration, storeRegistrationAlone } from './registration.repository';

/**
 * Load → decide (decide-registration.ts) → store, optimistic as a rule: the settings, the invoice,
 * what it booked, its rates and the ids drawn read with no lock (one statement), the registration
 * decided on them, and stored as one statement (`alone`) that holds the settings and settles the
 * invoice only while both are still as read. When either moved meanwhile, or the request is to be
 * refused, the usual way decides under the locks (`apply`): the settings held and the invoice locked
 * in the load, the store with the statement that commits.
 */
export const registerPaymentHandler = handler(invoicing.registerPayment, {
  alone: async (req, ctx) => {
    const instant = currentTime();
    const { state, read } = await readRegistration(ctx.db, ctx.orgId, req.id, rateWindow(req.payment_date, instant));
    const plan = unlessRefused(() => decidePaymentRegistration(state, req, { ...registrant(ctx), instant }));
    if (!plan || read.invoice === null) return undefined;
    return { ...storeRegistrationAlone(plan, read), events: eventsOf(plan, ctx.orgId), reply: plan.reply };
  },
  apply: async (req, ctx) => {
    return ctx.db.transaction(async (trx) => {
      const instant = currentTime();
      const state = await loadRegistration(trx, ctx.orgId, req.id, rateWindow(req.payment_date, instant));
      const plan = decidePaymentRegistration(state, req, { ...registrant(ctx), instant });
      await storeRegistration(trx, plan);
      await recordEvent(trx, invoicing.invoicePaymentRegistered, ctx.orgId, plan.events.registered);
      if (plan.events.paid) await recordEvent(trx, invoicing.invoicePaid, ctx.orgId, plan.events.paid);
      return plan.reply;
    });
  },
});

function registrant(ctx: { orgId: number; operationKey?: string; userId?: string }) {
  return { orgId: ctx.orgId, operationKey: ctx.operationKey ?? null, userId: ctx.userId ?? null };
}

function eventsOf(plan: PaymentRegistrationPlan, orgId: number) {
  return [
    statementEvent(invoicing.invoicePaymentRegistered, orgId, plan.events.registered),
    ...(plan.events.paid ? [statementEvent(invoicing.invoicePaid, orgId, plan.events.paid)] : []),
  ];
}
