import { sales } from '@bo/contracts';
import { actor } from '../actor';
import { toNumber } from '@bo/kernel';
import { handler } from '@bo/runtime';
import { documentDefaults, readSettings, resolveCatalogLines, type TaxContext, taxContextFor, toBreakdownRecord } from '@bo/billing';
import { documentTooLarge, lineTooLarge, MAX_LINE_TOTAL, priceLine } from './quotation-lines';
import { checkAddLine } from './quotation-status';
import { findQuotation, insertLines, linesOf } from './quotation.repository';
import { conversionUnfinished, enforce, statusOf } from './quotation-rules';
import { lineRow, toLineRecord, type LineRow } from './quotation.record';
import { quotationRefusals } from './quotation-refusals';
import { computeQuotation, storeQuotationTaxes } from './taxes';

/** Asks catalog about the line first, with no transaction open: no row lock is held meanwhile. */
export const addQuotationLineHandler = handler(sales.addQuotationLine, {
  gather: async (req, ctx) => {
    const { quotation_id: _id, org_id: _org, userid: _user, action: _action, ...input } = req;
    const [resolved] = await resolveCatalogLines(ctx, [input], (_i, field) => field);
    const line = priceLine(resolved!);
    if (lineTooLarge(line.amounts)) throw quotationRefusals.lineTotalTooLarge(MAX_LINE_TOTAL.toFixed());
    return line;
  },
  apply: async (req, ctx, line) => {
    // The row lock serializes lines, edits and conversion of this quotation, so totals never lose a line.
    const q = await findQuotation(ctx.db, ctx.orgId, req.quotation_id, { lock: true });
    const settings = await readSettings(ctx.db, ctx.orgId);
    enforce(checkAddLine(statusOf(q, settings.today()), conversionUnfinished(q)), q);
    if (q.line_count >= sales.MAX_QUOTATION_LINES) throw quotationRefusals.tooManyLines(q.quotation_number, sales.MAX_QUOTATION_LINES);
    // The whole quotation is computed again: its VAT is rounded per category, not per line. A sent
    // quotation keeps the policy it was sent with.
    const existing = await linesOf(ctx.db, q.id);
    const policy = await documentDefaults(ctx.db, ctx.orgId, q.partner_id, settings);
    const context: TaxContext =
      q.status === 'draft' || q.rounding === null
        ? taxContextFor(policy, q.currency)
        : { rounding: q.rounding, cash_rounding: q.cash_rounding, parties: null };
    const added = `line_items.${existing.length}.`;
    const doc = computeQuotation(q, [...existing, line], context, (f) => (f.startsWith(added) ? f.slice(added.length) : f));
    const totals = doc.totals;
    if (
      documentTooLarge({
        subtotal: totals.tax_exclusive_amount,
        tax_amount: totals.tax_total,
        discount_total: totals.line_net_total,
        total: totals.payable_amount,
      })
    )
      throw quotationRefusals.lineMakesTotalTooLarge();
    const [stored] = await insertLines(ctx.db, [lineRow(ctx.orgId, q.id, line, doc.lines[existing.length]!, doc.minor_unit)]);
    const row = await storeQuotationTaxes(ctx.db, q, [...existing, stored as LineRow], doc, context, {
      line_count: q.line_count + 1,
      updated_by: actor(req, ctx),
    });
    return {
      message: 'Line added successfully',
      line_item: toLineRecord(stored as LineRow),
      totals: {
        subtotal: toNumber(row.subtotal),
        tax_amount: toNumber(row.tax_amount),
        discount_total: toNumber(row.discount_total),
        quotation_total: toNumber(row.total),
        vat_total: toNumber(row.vat_total),
        rounding_amount: toNumber(row.rounding_amount),
        tax_breakdown: row.tax_breakdown.map(toBreakdownRecord),
      },
    };
  },
});
