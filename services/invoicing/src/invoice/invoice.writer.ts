import { invoicing } from '@bo/contracts';
import { formatDateTime, toNumber, type EnteredLine, type LineTaxes, type TaxDocument } from '@bo/kernel';
import {
  computeDocumentTaxes,
  documentDefaults,
  documentTaxColumns,
  taxContextFor,
  duplicate,
  exchangeRateProblem,
  isUniqueViolation,
  lineAmountColumns,
  lineAmountsUnchanged,
  numberDocument,
  pendingNumber,
  recordEvent,
  validationFailed,
  type DocumentDefaults,
  type FieldNaming,
  type Knex,
  type StoredAllowanceCharge,
  type TaxContext,
} from '@bo/runtime';
import { NUMBER_PREFIX } from '../domain/numbering';
import { eventRef, type InvoiceRow, type LineRow } from './invoice.record';
import { isNumberTaken } from './invoice.repository';

/**
 * A line to store: checked against the catalog first (create, add line, conversion) or copied from a
 * parent. Its texts and discount may be absent; lineColumns stores them as null and 0.
 */
export type LineValues = Omit<EnteredLine, 'product_name' | 'description' | 'discount'> &
  Partial<Pick<EnteredLine, 'product_name' | 'description'>> & { discount?: string | null };

/** Header columns a new invoice takes from its request (or from its recurring parent); its taxes are computed from its lines and allowances. */
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
      | 'exchange_rate'
    >
  > & { invoicedatetime: Date; invoicenumber?: string; allowances_charges?: StoredAllowanceCharge[] };

/** The stored form of a line: the server's arithmetic (its taxes as the document's calculation gave them), whatever amounts the client sent. */
export function lineColumns(orgId: number, invoiceId: number, line: LineValues, taxes: LineTaxes, places: number) {
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
    tax_exemption_reason: line.tax_exemption_reason ?? null,
    tax_exemption_code: line.tax_exemption_code ?? null,
    reverse_charge_rate: line.reverse_charge_rate ?? null,
    ...lineAmountColumns(taxes, places),
  };
}

/** An invoice's taxes with `context`, or a 400 naming what the rules refuse. */
export function computeInvoice(
  invoice: Pick<InvoiceRow, 'currency' | 'allowances_charges'>,
  lines: readonly LineValues[],
  context: TaxContext,
  naming?: FieldNaming,
): TaxDocument {
  return computeDocumentTaxes(invoice, lines, context, naming);
}

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
  const changed: Array<{ line: LineRow; columns: ReturnType<typeof lineAmountColumns> }> = [];
  const updated = lines.map((line, i) => {
    const columns = lineAmountColumns(doc.lines[i] as LineTaxes, doc.minor_unit);
    const same = lineAmountsUnchanged(line, columns);
    if (!same) changed.push({ line, columns });
    return same ? line : { ...line, ...columns };
  });
  if (changed.length) {
    const values = changed.map(() => '(?::int, ?, ?::numeric, ?::numeric, ?::numeric)').join(', ');
    await trx.raw(
      `update invoice_lines l set tax_category = v.tax_category, subtotal = v.subtotal, tax_amount = v.tax_amount, total = v.total
         from (values ${values}) as v(id, tax_category, subtotal, tax_amount, total) where l.id = v.id`,
      changed.flatMap(({ line, columns }) => [line.id, columns.tax_category, columns.subtotal, columns.tax_amount, columns.total]),
    );
  }
  const { total, ...columns } = documentTaxColumns(doc, invoice.allowances_charges, context);
  const [row] = await trx('invoices')
    .where({ id: invoice.id })
    .update({ ...columns, invoicetotal: total, ...extra, updated_at: trx.fn.now() })
    .returning<InvoiceRow[]>('*');
  return { row: row as InvoiceRow, lines: updated };
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
  /** documentDefaults of the invoice's partner when the caller read them already; else read here. */
  known?: DocumentDefaults,
): Promise<{ row: InvoiceRow; lines: LineRow[] }> {
  const { invoicenumber: supplied, allowances_charges: asked, ...header } = values;
  if (supplied && (await isNumberTaken(trx, orgId, supplied))) throw duplicateNumber(supplied);
  // The document's currency from its creation on: given (a recurring child keeps its contract's), else the partner's, else the organization's.
  const defaults = known ?? (await documentDefaults(trx, orgId, header.partner_id));
  const currency = header.currency ?? defaults.currency;
  const rateProblem = exchangeRateProblem(currency, header.exchange_rate, defaults.accounting_currency);
  // A rate the server carries (a converted quotation's, a contract's to its child) from before the
  // organization changed its accounting currency to the document's converts nothing: it books at 1.
  const carried = header.converted_from_quotation_id != null || header.parent_id != null;
  if (rateProblem && carried) header.exchange_rate = null;
  else if (rateProblem) throw validationFailed(rateProblem, [{ field: 'exchange_rate', message: rateProblem }]);
  const allowances = asked ?? [];
  const context = taxContextFor(defaults, currency);
  const doc = computeInvoice({ currency, allowances_charges: allowances }, lines, context);
  const { total, ...taxColumns } = documentTaxColumns(doc, allowances, context);
  let inserted: InvoiceRow;
  try {
    // A savepoint, so a lost race on a supplied number or the source leaves the caller's transaction usable.
    inserted = await trx.transaction(async (sp): Promise<InvoiceRow> => {
      const [row] = await sp('invoices')
        .insert({
          ...header,
          currency: doc.currency,
          org_id: orgId,
          invoicenumber: supplied ?? pendingNumber(),
          ...taxColumns,
          invoicetotal: total,
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
        .insert(lines.map((l, i) => lineColumns(orgId, inserted.id, l, doc.lines[i] as LineTaxes, doc.minor_unit)))
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
    ...eventRef(inserted),
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
