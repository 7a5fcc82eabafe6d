import { invoicing } from '@bo/contracts';
import { handler, unlessRefused } from '@bo/runtime';
import { lineStatusAlone, loadLine, readLine, setLineStatus } from './bank.repository';
import { decideUnreconcile } from './decide-line-status';
import { undoReconciliation } from './reconcile';

/**
 * Opens a reconciled or ignored line again: the payment its reconciliation made is voided, its own
 * postings reversed.
 *
 * Load → decide (decideUnreconcile) → store. An ignored line is opened again as one statement as a
 * rule (`alone`): read with no lock, and set `unmatched` only while it is the row read. Undoing a
 * reconciliation voids a payment through the payments' own write (voidPayment) and posts a
 * reversal, several writes that go on in one transaction: it is decided on the line loaded under its
 * lock (one statement), and stored in the runtime's transaction (`apply`), as is a request to refuse
 * or a line that moved meanwhile.
 */
export const unreconcileBankLineHandler = handler(invoicing.unreconcileBankLine, {
  alone: async (req, ctx) => {
    const read = await readLine(ctx.db, ctx.orgId, req.line_id);
    const plan = read && unlessRefused(() => decideUnreconcile(read.load, req.line_id));
    if (!read || plan?.kind !== 'reopen') return undefined;
    return { ...lineStatusAlone(plan.line.id, plan.line.status, read.read), events: [], reply: plan.reply };
  },
  apply: async (req, ctx) => {
    const plan = decideUnreconcile(await loadLine(ctx.db, ctx.orgId, req.line_id), req.line_id);
    if (plan.kind === 'undo') await undoReconciliation(ctx, plan.line, plan.reconciliation);
    else await setLineStatus(ctx.db, plan.line.id, plan.line.status);
    return plan.reply;
  },
});
