import { invoicing } from '@bo/contracts';
import { computeLine, formatDateTime, sumLines, toNumber, type EnteredLine } from '@bo/kernel';
import { documentCurrencySql, duplicate, isUniqueViolation, numberDocument, pendingNumber, recordEvent, type Knex } from '@bo/runtime';
import { NUMBER_PREFIX } from '../domain/numbering';
import type { InvoiceRow, LineRow } from './invoice.record';
import { isNumberTaken } from './invoice.repository';

/**
 * A line to store: checked against the catalog first (create, add line, conversion) or copied from a
 * parent. Its texts and discount may be absent; lineColumns stores them as null and 0.
 */
export type LineValues = Omit<EnteredLine, 'product_name' | 'description' | 'discount'> &
  Partial<Pick<EnteredLine, 'product_name' | 'description'>> & { discount?: string | null };

/** Header columns a new invoice takes from its request (or from its recurring parent). */
export type NewInvoice = Pick<InvoiceRow, 'invoicetype' | 'partner_id' | 'invoicestatus'> &
  Partial<
    Pick<
      InvoiceRow,
      | 'invoicedue'
      | 'comments'
      | 'invoicereference'
      | 'invoiceterms'
      | 'sourceid'
      | 'sourcenumber'
      | 'sourcetype'
      | 'converted_from_quotation_id'
      | 'credits_invoice_id'
      | 'restock'
      | 'chartofaccounts'
      | 'invoicejournal'
      | 'tradeaccount'
      | 'created_by'
      | 'recurring_enabled'
      | 'recurring_frequency'
      | 'recurring_start_date'
      | 'recurring_next_run_date'
      | 'recurring_next_index'
      | 'recurring_occurrences'
      | 'recurring_status'
      | 'parent_id'
      | 'run_date'
      | 'currency'
    >
  > & { invoicedatetime: Date; invoicenumber?: string };

/** The stored form of a line: the server's arithmetic, whatever amounts the client sent. */
export function lineColumns(orgId: number, invoiceId: number, line: LineValues) {
  const amounts = computeLine(line);
  return {
    org_id: orgId,
    invoice_id: invoiceId,
    product_id: line.product_id,
    variant_id: line.variant_id,
    location_id: line.location_id,
    product_name: line.product_name ?? null,
    sku: line.sku,
    uom: line.uom,
    description: line.description ?? null,
    quantity: line.quantity,
    price: line.price,
    discount: line.discount ?? '0',
    tax_rate: line.tax_rate,
    tax_included: line.tax_included,
    subtotal: amounts.subtotal.toFixed(2),
    tax_amount: amounts.tax_amount.toFixed(2),
    total: amounts.total.toFixed(2),
  };
}

/** Document totals are sums of the rounded lines (docs/design.md section 3). */
export async function refreshTotals(trx: Knex.Transaction, invoiceId: number): Promise<InvoiceRow> {
  const [row] = await trx('invoices')
    .where({ id: invoiceId })
    .update({
      subtotal: trx.raw('(select coalesce(sum(subtotal), 0) from invoice_lines where invoice_id = ?)', [invoiceId]),
      tax_amount: trx.raw('(select coalesce(sum(tax_amount), 0) from invoice_lines where invoice_id = ?)', [invoiceId]),
      invoicetotal: trx.raw('(select coalesce(sum(total), 0) from invoice_lines where invoice_id = ?)', [invoiceId]),
      updated_at: trx.fn.now(),
    })
    .returning<InvoiceRow[]>('*');
  return row as InvoiceRow;
}

/**
 * Inserts an invoice with its lines and records `invoicing.invoice.created`, inside the caller's
 * transaction. A supplied number is kept (a duplicate is 400); otherwise the invoice takes the next
 * gapless number of the type's series last, once it and its lines are written: the series' counter
 * stays locked from then until the caller commits, so the caller's next statement must be its last
 * (the recorded reply, with its COMMIT).
 */
export async function insertInvoice(
  trx: Knex.Transaction,
  orgId: number,
  values: NewInvoice,
  lines: LineValues[],
): Promise<{ row: InvoiceRow; lines: LineRow[] }> {
  const { invoicenumber: supplied, ...header } = values;
  if (supplied && (await isNumberTaken(trx, orgId, supplied))) throw duplicateNumber(supplied);
  const amounts = sumLines(lines.map((l) => computeLine(l)));
  // The document's currency from its creation on: given (a recurring child keeps its contract's), else the partner's, else the organization's.
  const currency = header.currency ?? documentCurrencySql(orgId, header.partner_id);
  let inserted: InvoiceRow;
  try {
    // A savepoint, so a lost race on a supplied number or the source leaves the caller's transaction usable.
    inserted = await trx.transaction(async (sp): Promise<InvoiceRow> => {
      const [row] = await sp('invoices')
        .insert({
          ...header,
          currency: typeof currency === 'string' ? currency : sp.raw(currency.sql, currency.bindings),
          org_id: orgId,
          invoicenumber: supplied ?? pendingNumber(),
          subtotal: amounts.subtotal.toFixed(2),
          tax_amount: amounts.tax_amount.toFixed(2),
          invoicetotal: amounts.total.toFixed(2),
        })
        .returning<InvoiceRow[]>('*');
      return row as InvoiceRow;
    });
  } catch (err) {
    if (supplied && isUniqueViolation(err, 'invoices_org_number')) throw duplicateNumber(supplied);
    throw err;
  }
  const lineRows = lines.length
    ? await trx('invoice_lines')
        .insert(lines.map((l) => lineColumns(orgId, inserted.id, l)))
        .returning<LineRow[]>('*')
    : [];
  if (!supplied) {
    const invoicenumber = await numberDocument(trx, orgId, NUMBER_PREFIX[values.invoicetype], {
      table: 'invoices',
      column: 'invoicenumber',
      id: inserted.id,
    });
    inserted = { ...inserted, invoicenumber };
  }
  await recordEvent(trx, invoicing.invoiceCreated.type, orgId, {
    invoice_id: inserted.id,
    invoicenumber: inserted.invoicenumber,
    invoicetype: inserted.invoicetype,
    partner_id: inserted.partner_id,
    invoicetotal: toNumber(inserted.invoicetotal),
    sourcetype: inserted.sourcetype,
    sourceid: inserted.sourceid,
    sourcenumber: inserted.sourcenumber,
    invoicestatus: inserted.invoicestatus,
    invoicedatetime: formatDateTime(inserted.invoicedatetime) as string,
    subtotal: toNumber(inserted.subtotal),
    tax_amount: toNumber(inserted.tax_amount),
    invoicedue: inserted.invoicedue,
    parent_id: inserted.parent_id,
  });
  return { row: inserted, lines: lineRows.sort((a, b) => a.id - b.id) };
}

function duplicateNumber(invoicenumber: string) {
  return duplicate(`Invoice number ${invoicenumber} already exists`, 'invoicenumber');
}
