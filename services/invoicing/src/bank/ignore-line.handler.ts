import { invoicing } from '@bo/contracts';
import { handler, unlessRefused } from '@bo/runtime';
import { lineStatusAlone, loadLine, readLine, setLineStatus } from './bank.repository';
import { decideIgnore } from './decide-line-status';

/**
 * Sets a line aside (a transfer between own accounts, a line booked elsewhere): nothing is posted;
 * unreconcile opens it again.
 *
 * Load → decide (decideIgnore) → store, optimistic as a rule: the line and its reconciliation read
 * with no lock (one statement), and the line set aside as one statement only while it is the row
 * read (`alone`). When it moved meanwhile (reconciled, say), or the request is to be refused, the
 * usual way decides under the line's lock (`apply`).
 */
export const ignoreBankLineHandler = handler(invoicing.ignoreBankLine, {
  alone: async (req, ctx) => {
    const read = await readLine(ctx.db, ctx.orgId, req.line_id);
    const plan = read && unlessRefused(() => decideIgnore(read.load, req.line_id));
    if (!read || !plan) return undefined;
    return { ...lineStatusAlone(plan.line.id, plan.line.status, read.read), events: [], reply: plan.reply };
  },
  apply: async (req, ctx) => {
    const plan = decideIgnore(await loadLine(ctx.db, ctx.orgId, req.line_id), req.line_id);
    await setLineStatus(ctx.db, plan.line.id, plan.line.status);
    return plan.reply;
  },
});
