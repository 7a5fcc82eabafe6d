import type { invoicing, ReplyOf } from '@bo/contracts';
import { toNumber } from '@bo/kernel';
import {
  defaultsOf,
  documentTaxColumns,
  lineAmountColumns,
  lineAmountsUnchanged,
  taxContextFor,
  toBreakdownRecord,
  type OrganizationSettings,
  type StoredBreakdown,
} from '@bo/billing';
import { isEditable } from '../domain/status';
import { computeInvoice, lineColumns, type LineValues } from './decide-new-invoice';
import { toLineRecord, type InvoiceRow, type LineRow } from './invoice.record';
import { invoiceRefusals } from './invoice-refusals';

export const MAX_LINES = 500;

/** What adding a line decides on (line.repository.ts): the invoice, its lines in order, and the organization's settings. */
export interface AddLineState {
  invoice: InvoiceRow;
  lines: readonly LineRow[];
  /** The organization's settings row (its rounding policy, cash rounding, accounting currency); undefined: unseen. */
  settings: OrganizationSettings | undefined;
}

/** What adding a line writes. */
export interface AddLinePlan {
  /** The new line's columns; its id is the store's. */
  line: ReturnType<typeof lineColumns>;
  /** The lines already there whose amounts the calculation moves: the document's VAT is rounded per category, not per line. */
  changed: Array<{ id: number; columns: ReturnType<typeof lineAmountColumns> }>;
  /** The invoice's tax columns and total. */
  header: Omit<ReturnType<typeof documentTaxColumns>, 'total'> & { invoicetotal: string };
}

/**
 * A line added to a draft or proforma invoice (`line`, checked against the catalog already), with
 * the whole document computed again; an issued invoice, or one at MAX_LINES, is refused, and so is a
 * line the tax rules refuse (named as the request's own fields).
 */
export function decideAddLine(state: AddLineState, line: LineValues): AddLinePlan {
  const { invoice, lines: existing } = state;
  if (!isEditable(invoice.invoicestatus)) throw invoiceRefusals.lineAddedToIssued(invoice.invoicenumber, invoice.invoicestatus);
  if (existing.length >= MAX_LINES) throw invoiceRefusals.tooManyLines(invoice.invoicenumber, MAX_LINES);
  const context = taxContextFor(defaultsOf(state.settings, null), invoice.currency);
  const added = `line_items.${existing.length}.`;
  const doc = computeInvoice(invoice, [...existing, line], context, (f) => (f.startsWith(added) ? f.slice(added.length) : f));
  const changed = existing.flatMap((stored, i) => {
    const columns = lineAmountColumns(doc.lines[i]!, doc.minor_unit);
    return lineAmountsUnchanged(stored, columns) ? [] : [{ id: stored.id, columns }];
  });
  const { total, ...taxes } = documentTaxColumns(doc, invoice.allowances_charges, context);
  return {
    line: lineColumns(invoice.org_id, invoice.id, line, doc.lines[existing.length]!, doc.minor_unit),
    changed,
    header: { ...taxes, invoicetotal: total },
  };
}

/** The answer: the line as stored (`lineId`, the store's) and the invoice's new figures. */
export function addLineReply(plan: AddLinePlan, lineId: number): ReplyOf<typeof invoicing.addInvoiceLine> {
  const h = plan.header;
  return {
    message: 'Line item added successfully',
    line_item: toLineRecord({ ...plan.line, id: lineId }),
    invoice: {
      id: plan.line.invoice_id,
      subtotal: toNumber(h.subtotal),
      tax_amount: toNumber(h.tax_amount),
      invoicetotal: toNumber(h.invoicetotal),
      vat_total: toNumber(h.vat_total),
      rounding_amount: toNumber(h.rounding_amount),
      tax_breakdown: (JSON.parse(h.tax_breakdown) as StoredBreakdown[]).map(toBreakdownRecord),
    },
  };
}
