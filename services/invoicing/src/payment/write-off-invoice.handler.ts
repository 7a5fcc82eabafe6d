import { invoicing } from '@bo/contracts';
import { currentTime } from '@bo/kernel';
import { handler, recordEvent, statementEvent, unlessRefused } from '@bo/runtime';
import { decideWriteOffPlan } from './decide-write-off';
import { loadWriteOff, readWriteOff, storeWriteOff, storeWriteOffAlone } from './write-off.repository';

/**
 * Writes off what is still due on an open or overdue customer invoice: a bad-debt expense against
 * its receivable, status `written_off`, and `invoicing.invoice.written_off` for the partner ledger.
 * Drafts, proformas, paid, cancelled and written-off invoices, and vendor documents, are refused.
 *
 * Load → decide (decide-write-off.ts) → store, optimistic as a rule: the settings, the invoice, what
 * it booked and the entry's id drawn read with no lock (one statement), the write-off decided on
 * them, and stored as one statement (`alone`) that holds the settings and writes the invoice off only
 * while both are still as read. When either moved meanwhile (a payment, a lock date), or the request
 * is to be refused, the usual way decides under the locks (`apply`): the settings held and the
 * invoice locked in the load, the store with the statement that commits.
 */
export const writeOffInvoiceHandler = handler(invoicing.writeOffInvoice, {
  alone: async (req, ctx) => {
    const { load, read } = await readWriteOff(ctx.db, ctx.orgId, req.id);
    const plan = unlessRefused(() => decideWriteOffPlan(load, req, { orgId: ctx.orgId, instant: currentTime() }));
    if (!plan || read.invoice === null) return undefined;
    return {
      ...storeWriteOffAlone(plan, read),
      events: [statementEvent(invoicing.invoiceWrittenOff, ctx.orgId, plan.event)],
      reply: plan.reply,
    };
  },
  apply: async (req, ctx) => {
    return ctx.db.transaction(async (trx) => {
      const load = await loadWriteOff(trx, ctx.orgId, req.id);
      const plan = decideWriteOffPlan(load, req, { orgId: ctx.orgId, instant: currentTime() });
      await storeWriteOff(trx, plan);
      await recordEvent(trx, invoicing.invoiceWrittenOff, ctx.orgId, plan.event);
      return plan.reply;
    });
  },
});
