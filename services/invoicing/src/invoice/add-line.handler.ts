import { invoicing } from '@bo/contracts';
import { toNumber } from '@bo/kernel';
import { handler } from '@bo/runtime';
import { documentDefaults, taxContextFor, resolveCatalogLines, toBreakdownRecord } from '@bo/billing';
import { lineTotalProblem } from '../domain/line-limits';
import { isEditable } from '../domain/status';
import { toLineRecord } from './invoice.record';
import { findInvoice, insertLine, linesOf } from './invoice.repository';
import { computeInvoice, lineColumns, storeTaxes } from './invoice.writer';
import { invoiceRefusals } from './invoice-refusals';

const MAX_LINES = 500;

/** Asks catalog about the line first, with no transaction open: no row lock is held meanwhile. */
export const addLineHandler = handler(invoicing.addInvoiceLine, {
  gather: async (req, ctx) => {
    const [line] = await resolveCatalogLines(ctx, [req], (_i, field) => field);
    const tooLarge = lineTotalProblem(line!);
    if (tooLarge) throw invoiceRefusals.lineTotalTooLarge(tooLarge);
    return line!;
  },
  apply: async (req, ctx, line) => {
    // The lock serializes line adds with validation, so a posted invoice never gains a line.
    const invoice = await findInvoice(ctx.db, ctx.orgId, req.invoice_id, { lock: true });
    if (!isEditable(invoice.invoicestatus)) throw invoiceRefusals.lineAddedToIssued(invoice.invoicenumber, invoice.invoicestatus);
    const existing = (await linesOf(ctx.db, [invoice.id])).get(invoice.id) ?? [];
    if (existing.length >= MAX_LINES) throw invoiceRefusals.tooManyLines(invoice.invoicenumber, MAX_LINES);
    // The whole document is computed again: its VAT is rounded per category, not per line.
    const policy = await documentDefaults(ctx.db, ctx.orgId, invoice.partner_id);
    const context = taxContextFor(policy, invoice.currency);
    const added = `line_items.${existing.length}.`;
    const doc = computeInvoice(invoice, [...existing, line], context, (f) => (f.startsWith(added) ? f.slice(added.length) : f));
    const stored = await insertLine(ctx.db, lineColumns(ctx.orgId, invoice.id, line, doc.lines[existing.length]!, doc.minor_unit));
    const { row } = await storeTaxes(ctx.db, invoice, [...existing, stored], doc, context);
    return {
      message: 'Line item added successfully',
      line_item: toLineRecord(stored),
      invoice: {
        id: row.id,
        subtotal: toNumber(row.subtotal),
        tax_amount: toNumber(row.tax_amount),
        invoicetotal: toNumber(row.invoicetotal),
        vat_total: toNumber(row.vat_total),
        rounding_amount: toNumber(row.rounding_amount),
        tax_breakdown: row.tax_breakdown.map(toBreakdownRecord),
      },
    };
  },
});
