import { invoicing } from '@bo/contracts';
import { filledIn, handler, loadedUnlessRefused, unlessRefused } from '@bo/runtime';
import { resolveCatalogLines } from '@bo/billing';
import { lineTotalProblem } from '../domain/line-limits';
import { addLineReply, decideAddLine } from './decide-add-line';
import { addLineAlone, loadAddLine, storeAddedLine } from './line.repository';
import { invoiceRefusals } from './invoice-refusals';

/**
 * Asks catalog about the line first, with no transaction open: no row lock is held meanwhile. Then
 * load → decide (decideAddLine: the whole document computed again) → store, optimistic as a rule:
 * the invoice, its lines and the settings read with no lock, and the line with the invoice's new
 * figures stored as one statement only while the invoice is the row read (`alone`). A validation
 * locks the invoice and changes it, so a posted invoice never gains a line: a line decided on the
 * draft meanwhile validated, or a refusal, goes the locked way (`apply`).
 */
export const addLineHandler = handler(invoicing.addInvoiceLine, {
  gather: async (req, ctx) => {
    const [line] = await resolveCatalogLines(ctx, [req], (_i, field) => field);
    const tooLarge = lineTotalProblem(line!);
    if (tooLarge) throw invoiceRefusals.lineTotalTooLarge(tooLarge);
    return line!;
  },
  alone: async (req, ctx, line) => {
    const loaded = await loadedUnlessRefused(loadAddLine(ctx.db, ctx.orgId, req.invoice_id));
    const plan = loaded && unlessRefused(() => decideAddLine(loaded, line));
    if (!loaded || !plan) return undefined;
    return { ...addLineAlone(plan, loaded.read), events: [], reply: addLineReply(plan, filledIn<number>()) };
  },
  apply: async (req, ctx, line) => {
    const loaded = await loadAddLine(ctx.db, ctx.orgId, req.invoice_id, { lock: true });
    const plan = decideAddLine(loaded, line);
    await storeAddedLine(ctx.db, plan, loaded.drawnLineId!);
    return addLineReply(plan, loaded.drawnLineId!);
  },
});
