import { sales } from '@bo/contracts';
import { actor } from '../actor';
import { dec, toNumber } from '@bo/kernel';
import { handler, invalidState, resolveCatalogLines, organizationToday, validationFailed } from '@bo/runtime';
import { addToTotals, documentTooLarge, lineTooLarge, MAX_LINE_TOTAL, priceLine } from './quotation-lines';
import { checkAddLine } from './quotation-status';
import { conversionUnfinished, enforce, findQuotation, statusOf } from './quotation.repository';
import { lineRow, toLineRecord, type LineRow } from './quotation.record';

/** Asks catalog about the line first, with no transaction open: no row lock is held meanwhile. */
export const addQuotationLineHandler = handler(sales.addQuotationLine, {
  gather: async (req, ctx) => {
    const { quotation_id: _id, org_id: _org, userid: _user, action: _action, ...input } = req;
    const [resolved] = await resolveCatalogLines(ctx, [input], (_i, field) => field);
    const line = priceLine(resolved!);
    if (lineTooLarge(line.amounts)) {
      const message = `line total must be less than ${MAX_LINE_TOTAL.toFixed()}`;
      throw validationFailed(message, [{ field: 'quantity', message }]);
    }
    return line;
  },
  apply: async (req, ctx, line) => {
    // The row lock serializes lines, edits and conversion of this quotation, so totals never lose a line.
    const q = await findQuotation(ctx.db, ctx.orgId, req.quotation_id, { lock: true });
    enforce(checkAddLine(statusOf(q, await organizationToday(ctx.db, ctx.orgId)), conversionUnfinished(q)), q);
    if (q.line_count >= sales.MAX_QUOTATION_LINES)
      throw invalidState(`Quotation ${q.quotation_number} already has ${sales.MAX_QUOTATION_LINES} lines, the most a quotation can hold`);
    const totals = addToTotals(
      { subtotal: dec(q.subtotal), tax_amount: dec(q.tax_amount), discount_total: dec(q.discount_total), total: dec(q.total) },
      line.amounts,
    );
    if (documentTooLarge(totals))
      throw validationFailed('The quotation total would be too large', [
        { field: 'quantity', message: 'this line makes the quotation total too large' },
      ]);
    const [stored] = (await ctx
      .db('quotation_lines')
      .insert(lineRow(ctx.orgId, q.id, line))
      .returning('*')) as LineRow[];
    await ctx
      .db('quotations')
      .where({ id: q.id })
      .update({
        subtotal: totals.subtotal.toFixed(2),
        tax_amount: totals.tax_amount.toFixed(2),
        discount_total: totals.discount_total.toFixed(2),
        total: totals.total.toFixed(2),
        line_count: q.line_count + 1,
        updated_by: actor(req, ctx),
        updated_at: ctx.db.fn.now(),
      });
    return {
      message: 'Line added successfully',
      line_item: toLineRecord(stored as LineRow),
      totals: {
        subtotal: toNumber(totals.subtotal),
        tax_amount: toNumber(totals.tax_amount),
        discount_total: toNumber(totals.discount_total),
        quotation_total: toNumber(totals.total),
      },
    };
  },
});
