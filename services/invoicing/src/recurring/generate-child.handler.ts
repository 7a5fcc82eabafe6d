import { invoicing } from '@bo/contracts';
import { filledIn, handler, loadedUnlessRefused, statementEvent, unlessRefused } from '@bo/runtime';
import { readSettings, requireLivePartner } from '@bo/billing';
import { decideNewInvoice, newInvoiceRows } from '../invoice/decide-new-invoice';
import { NEW_DOCUMENT_PAYMENT_STATE, toInvoiceRecord } from '../invoice/invoice.record';
import { findInvoice, linesOf } from '../invoice/invoice.repository';
import { createdEvent } from '../invoice/invoice.writer';
import { checkChildLines } from './child-lines';
import { childAlone, contractReply, lockContract, makeNextChild, readNextChild } from './contract';
import { decideGeneration, decideNextChild } from './decide-contract';

const generated = (invoicenumber: string) => `Child invoice ${invoicenumber} generated successfully`;

/**
 * Makes the child of the next run date now, at most one period ahead of the schedule; the scheduler
 * then moves on. The partners and catalog services are asked first, with no transaction open (the
 * partner must still exist, the lines' products too), so no row lock is held while they answer.
 *
 * Load → decide (decideGeneration, decideNextChild, decideNewInvoice) → store, optimistic as a rule:
 * the contract, its lines, the new invoice's defaults and the ids drawn read with no lock (one
 * statement), and the child stored with the contract moved on as one statement, only while the
 * contract is the row read (`alone`, childAlone). The scheduler's pass meanwhile, a number typed by
 * hand into the series, or a refusal, goes the locked way (`apply`), as the scheduler makes a child.
 */
export const generateChildHandler = handler(invoicing.generateChildInvoice, {
  gather: async (req, ctx) => {
    const unlocked = await findInvoice(ctx.db, ctx.orgId, req.id);
    if (unlocked.recurring_enabled) {
      await requireLivePartner(ctx, unlocked.partner_id);
      await checkChildLines(ctx, (await linesOf(ctx.db, [unlocked.id])).get(unlocked.id) ?? []);
    }
  },
  alone: async (req, ctx) => {
    const loaded = await loadedUnlessRefused(readNextChild(ctx.db, ctx.orgId, req.id));
    const decided =
      loaded &&
      unlessRefused(() => {
        decideGeneration(loaded.row, loaded.today);
        const { values, contract } = decideNextChild(loaded.row);
        return { plan: decideNewInvoice(ctx.orgId, values, loaded.lines, loaded.defaults), contract };
      });
    if (!loaded || !decided) return undefined;
    const child = newInvoiceRows(decided.plan, loaded.drawn, decided.plan.supplied ?? filledIn<string>());
    return {
      ...childAlone(decided.plan, child, { id: loaded.row.id, changes: decided.contract, read: loaded.read }, generated),
      events: [statementEvent(invoicing.invoiceCreated, ctx.orgId, createdEvent(child.row))],
      reply: {
        ...contractReply(filledIn<string>(), { ...loaded.row, ...decided.contract }),
        child: toInvoiceRecord(child.row, child.lines, loaded.today, NEW_DOCUMENT_PAYMENT_STATE),
      },
    };
  },
  apply: async (req, ctx) => {
    const contract = await lockContract(ctx.db, ctx.orgId, req.id);
    const today = (await readSettings(ctx.db, ctx.orgId)).today();
    decideGeneration(contract, today);
    const { parent, child } = await makeNextChild(ctx.db, contract, today);
    return { ...contractReply(generated(child.invoicenumber), parent), child };
  },
});
