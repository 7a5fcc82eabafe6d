import { invoicing } from '@bo/contracts';
import { formatDateTime, toNumber, type LineTaxes, type TaxDocument } from '@bo/kernel';
import { numberDocument, recordEvent, type Knex } from '@bo/runtime';
import {
  documentDefaults,
  documentTaxColumns,
  lineAmountColumns,
  lineAmountsUnchanged,
  partnerBeingDeleted,
  type DocumentDefaults,
  type TaxContext,
} from '@bo/billing';
import { decideNewInvoice, type LineValues, type NewInvoice, type NewInvoicePlan } from './decide-new-invoice';
import { eventRef, type InvoiceRow, type LineRow } from './invoice.record';
import { duplicateNumber, storeNewInvoice } from './invoice.repository';
import { lineAmountsPart } from './line.repository';

export { computeInvoice, lineColumns, type LineValues, type NewInvoice } from './decide-new-invoice';

/**
 * Stores a computed invoice's amounts: the lines whose figures changed (under `document` rounding a
 * line's share may move when another is added) and the header's totals, breakdown and policy.
 */
export async function storeTaxes(
  trx: Knex.Transaction,
  invoice: InvoiceRow,
  lines: readonly LineRow[],
  doc: TaxDocument,
  context: TaxContext,
  extra: Partial<Record<string, unknown>> = {},
): Promise<{ row: InvoiceRow; lines: LineRow[] }> {
  const changed: Array<{ id: number; columns: ReturnType<typeof lineAmountColumns> }> = [];
  const updated = lines.map((line, i) => {
    const columns = lineAmountColumns(doc.lines[i] as LineTaxes, doc.minor_unit);
    const same = lineAmountsUnchanged(line, columns);
    if (!same) changed.push({ id: line.id, columns });
    return same ? line : { ...line, ...columns };
  });
  const [amounts] = lineAmountsPart(changed);
  if (amounts) await trx.raw(amounts.sql, amounts.bindings);
  const { total, ...columns } = documentTaxColumns(doc, invoice.allowances_charges, context);
  const [row] = await trx('invoices')
    .where({ id: invoice.id })
    .update({ ...columns, invoicetotal: total, ...extra, updated_at: trx.fn.now() })
    .returning<InvoiceRow[]>('*');
  return { row: row as InvoiceRow, lines: updated };
}

/**
 * Inserts an invoice with its lines and records `invoicing.invoice.created`, inside the caller's
 * transaction: decided (decideNewInvoice), then stored (storeInvoicePlan). A supplied number is kept
 * (a duplicate is 400); otherwise the invoice takes the next gapless number of the type's series.
 */
export async function insertInvoice(
  trx: Knex.Transaction,
  orgId: number,
  values: NewInvoice,
  lines: LineValues[],
  /** documentDefaults of the invoice's partner when the caller read them already; else read here. */
  known?: DocumentDefaults,
): Promise<{ row: InvoiceRow; lines: LineRow[] }> {
  const defaults = known ?? (await documentDefaults(trx, orgId, values.partner_id));
  return storeInvoicePlan(trx, decideNewInvoice(orgId, values, lines, defaults));
}

/**
 * Stores a decided invoice in one statement (storeNewInvoice), checking the partner's delete fence
 * first when `fencedPartner` is set, and records `invoicing.invoice.created`. The number is taken
 * in that statement, and the series' counter stays locked from then until the caller commits, so
 * the caller's next statement must be its last (the recorded reply, with its COMMIT).
 */
export async function storeInvoicePlan(
  trx: Knex.Transaction,
  plan: NewInvoicePlan,
  opts: { fencedPartner?: number } = {},
): Promise<{ row: InvoiceRow; lines: LineRow[] }> {
  const orgId = plan.header.org_id as number;
  // A savepoint, so a lost race on a supplied number or the source leaves the caller's transaction usable.
  const stored = await trx.transaction((sp) => storeNewInvoice(sp, plan, opts.fencedPartner));
  if (!stored.stored) {
    if (stored.fenced) throw partnerBeingDeleted(opts.fencedPartner as number);
    throw duplicateNumber(plan.supplied as string);
  }
  let inserted = stored.row;
  if (stored.numberTaken) {
    // The series' next number was typed by hand into another invoice: the next free one, in a statement of its own.
    const invoicenumber = await numberDocument(trx, orgId, plan.series, { table: 'invoices', column: 'invoicenumber', id: inserted.id });
    inserted = { ...inserted, invoicenumber };
  }
  await recordEvent(trx, invoicing.invoiceCreated, orgId, createdEvent(inserted));
  return { row: inserted, lines: stored.lines };
}

/** What `invoicing.invoice.created` tells of the invoice as stored. */
export function createdEvent(inserted: InvoiceRow) {
  return {
    ...eventRef(inserted),
    invoicestatus: inserted.invoicestatus,
    invoicedatetime: formatDateTime(inserted.invoicedatetime) as string,
    subtotal: toNumber(inserted.subtotal),
    tax_amount: toNumber(inserted.tax_amount),
    invoicedue: inserted.invoicedue,
    parent_id: inserted.parent_id,
  };
}
