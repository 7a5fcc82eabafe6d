import { invoicing } from '@bo/contracts';
import { toNumber } from '@bo/kernel';
import { handler, invalidState, resolveCatalogLines, validationFailed } from '@bo/runtime';
import { lineTotalProblem } from '../domain/line-limits';
import { isEditable } from '../domain/status';
import { toLineRecord, type LineRow } from './invoice.record';
import { countLines, findInvoice } from './invoice.repository';
import { lineColumns, refreshTotals } from './invoice.writer';

const MAX_LINES = 500;

/** Asks catalog about the line first, with no transaction open: no row lock is held meanwhile. */
export const addLineHandler = handler(invoicing.addInvoiceLine, {
  gather: async (req, ctx) => {
    const [line] = await resolveCatalogLines(ctx, [req], (_i, field) => field);
    const tooLarge = lineTotalProblem(line!);
    if (tooLarge) throw validationFailed(tooLarge, [{ field: 'quantity', message: tooLarge }]);
    return line!;
  },
  apply: async (req, ctx, line) => {
    // The lock serializes line adds with validation, so a posted invoice never gains a line.
    const invoice = await findInvoice(ctx.db, ctx.orgId, req.invoice_id, { lock: true });
    if (!isEditable(invoice.invoicestatus)) {
      throw invalidState(
        `Lines can only be added to draft or proforma invoices; invoice ${invoice.invoicenumber} is ${invoice.invoicestatus}`,
      );
    }
    const count = await countLines(ctx.db, invoice.id);
    if (count >= MAX_LINES) throw invalidState(`Invoice ${invoice.invoicenumber} already has the maximum of ${MAX_LINES} lines`);
    const [stored] = (await ctx
      .db('invoice_lines')
      .insert(lineColumns(ctx.orgId, invoice.id, line))
      .returning('*')) as LineRow[];
    const totals = await refreshTotals(ctx.db, invoice.id);
    return {
      message: 'Line item added successfully',
      line_item: toLineRecord(stored as LineRow),
      invoice: {
        id: totals.id,
        subtotal: toNumber(totals.subtotal),
        tax_amount: toNumber(totals.tax_amount),
        invoicetotal: toNumber(totals.invoicetotal),
      },
    };
  },
});
