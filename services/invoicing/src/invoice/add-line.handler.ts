import { invoicing } from '@bo/contracts';
import { toNumber } from '@bo/kernel';
import { handler, invalidState, resolveCatalogLines, validationFailed } from '@bo/runtime';
import { lineTotalProblem } from '../domain/line-limits';
import { isEditable } from '../domain/status';
import { toLineRecord, type LineRow } from './invoice.record';
import { countLines, findInvoice } from './invoice.repository';
import { lineColumns, refreshTotals } from './invoice.writer';

const MAX_LINES = 500;

/** Opens its own transaction, after asking catalog about the line: no row lock is held meanwhile. */
export const addLineHandler = handler(
  invoicing.addInvoiceLine,
  async (req, ctx) => {
    const [line] = await resolveCatalogLines(ctx, [req], (_i, field) => field);
    const tooLarge = lineTotalProblem(line!);
    if (tooLarge) throw validationFailed(tooLarge, [{ field: 'quantity', message: tooLarge }]);
    return ctx.db.transaction(async (trx) => {
      // The lock serializes line adds with validation, so a posted invoice never gains a line.
      const invoice = await findInvoice(trx, ctx.orgId, req.invoice_id, { lock: true });
      if (!isEditable(invoice.invoicestatus)) {
        throw invalidState(
          `Lines can only be added to draft or proforma invoices; invoice ${invoice.invoicenumber} is ${invoice.invoicestatus}`,
        );
      }
      const count = await countLines(trx, invoice.id);
      if (count >= MAX_LINES) throw invalidState(`Invoice ${invoice.invoicenumber} already has the maximum of ${MAX_LINES} lines`);
      const [stored] = (await trx('invoice_lines')
        .insert(lineColumns(ctx.orgId, invoice.id, line!))
        .returning('*')) as LineRow[];
      const totals = await refreshTotals(trx, invoice.id);
      const reply = {
        message: 'Line item added successfully',
        line_item: toLineRecord(stored as LineRow),
        invoice: {
          id: totals.id,
          subtotal: toNumber(totals.subtotal),
          tax_amount: toNumber(totals.tax_amount),
          invoicetotal: toNumber(totals.invoicetotal),
        },
      };
      await ctx.finish(trx, reply);
      return reply;
    });
  },
  { transactions: 'own' },
);
