import { invoicing } from '@bo/contracts';
import { currentTime } from '@bo/kernel';
import { handler, recordEvent, statementEvent, unlessRefused } from '@bo/runtime';
import { lineStatusAlone, setLineStatus } from './bank.repository';
import { decideUndo } from './decide-undo';
import { loadUnreconcile, readUnreconcile, storeUndo, undoAlone } from './undo.repository';

/**
 * Opens a reconciled or ignored line again: the payment its reconciliation made is voided, its own
 * postings reversed.
 *
 * Load → decide (decideUndo) → store, optimistic as a rule: the line, its active reconciliation, the
 * payment it made with everything the payments' void decides on, the entry it posted, the bills the
 * line paid and the ids drawn, read with no lock (one statement); decided by the line's rules and the
 * void's own (decideVoid, one copy of its rules); stored as one statement (`alone`) that writes the
 * line only while it is the row read, the void as the payments' void stores it alone (the payment and
 * each document only while as read), and the reversal under the settings guard. An ignored line is
 * set `unmatched` only while it is the row read. When anything moved meanwhile, or the request is to
 * be refused, the usual way decides the same under the locks (`apply`), and refuses as before.
 */
export const unreconcileBankLineHandler = handler(invoicing.unreconcileBankLine, {
  alone: async (req, ctx) => {
    const { load, read } = await readUnreconcile(ctx.db, ctx.orgId, req.line_id);
    const plan = unlessRefused(() => decideUndo(load, req.line_id, { orgId: ctx.orgId, instant: currentTime() }));
    if (!plan || read.line === null) return undefined;
    if (plan.kind === 'reopen') return { ...lineStatusAlone(plan.line.id, plan.line.status, read.line), events: [], reply: plan.reply };
    return {
      ...undoAlone(plan, read),
      events: plan.void ? [statementEvent(invoicing.paymentVoided, ctx.orgId, plan.void.event)] : [],
      reply: plan.reply,
    };
  },
  apply: async (req, ctx) => {
    const plan = decideUndo(await loadUnreconcile(ctx.db, ctx.orgId, req.line_id), req.line_id, {
      orgId: ctx.orgId,
      instant: currentTime(),
    });
    if (plan.kind === 'reopen') await setLineStatus(ctx.db, plan.line.id, plan.line.status);
    else {
      await storeUndo(ctx.db, plan, 'with commit');
      if (plan.void) await recordEvent(ctx.db, invoicing.paymentVoided, ctx.orgId, plan.void.event);
    }
    return plan.reply;
  },
});
