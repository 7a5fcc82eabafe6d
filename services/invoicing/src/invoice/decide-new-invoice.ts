import type { EnteredLine, LineTaxes, TaxDocument } from '@bo/kernel';
import {
  computeDocumentTaxes,
  documentTaxColumns,
  exchangeRateProblem,
  lineAmountColumns,
  taxContextFor,
  type DocumentDefaults,
  type FieldNaming,
  type StoredAllowanceCharge,
  type TaxContext,
} from '@bo/billing';
import { NUMBER_PREFIX } from '../domain/numbering';
import type { InvoiceRow, LineRow } from './invoice.record';
import { invoiceRefusals } from './invoice-refusals';

/**
 * A line to store: checked against the catalog first (create, add line, conversion) or copied from a
 * parent. Its texts and discount may be absent; lineColumns stores them as null and 0.
 */
export type LineValues = Omit<EnteredLine, 'product_name' | 'description' | 'discount'> &
  Partial<Pick<EnteredLine, 'product_name' | 'description'>> & {
    discount?: string | null;
    /** Only a bill made by import states it (its supplier's VAT kept, TaxedLine.stated_tax). */
    stated_tax?: string | null;
    /** false for a line that names no catalog product (a reminder's fee): it moves no stock. Default true. */
    catalog_checked?: boolean;
  };

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
    stated_tax: line.stated_tax ?? null,
    catalog_checked: line.catalog_checked ?? true,
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
 * A new invoice as decided, before it is stored: its header's columns (number aside), its lines'
 * columns in the request's order (each takes the invoice's id when stored), and how it is numbered:
 * the number the client supplied, else the next of its type's gapless series (`series`, the prefix),
 * taken by the statement that stores it (storeNewInvoice).
 */
export interface NewInvoicePlan {
  header: Record<string, unknown>;
  lines: Array<Omit<ReturnType<typeof lineColumns>, 'invoice_id'>>;
  supplied: string | undefined;
  series: string;
}

/**
 * Decides a new invoice from its columns and lines (newInvoiceFrom's, or a recurring parent's) and
 * the defaults of its organization and partner (documentDefaults): its currency is the one given
 * (a recurring child keeps its contract's), else the partner's, else the organization's; an exchange
 * rate must fit that currency and the organization's accounting currency, except a rate the server
 * carries (a converted quotation's, a contract's to its child) from before the organization changed
 * its accounting currency to the document's, which books at 1; its taxes are the kernel's
 * calculation of its lines and allowances under the organization's policy. Pure: a refusal is thrown.
 */
export function decideNewInvoice(
  orgId: number,
  values: NewInvoice,
  lines: readonly LineValues[],
  defaults: DocumentDefaults,
): NewInvoicePlan {
  const { invoicenumber: supplied, allowances_charges: asked, ...header } = values;
  const currency = header.currency ?? defaults.currency;
  const rateProblem = exchangeRateProblem(currency, header.exchange_rate, defaults.accounting_currency);
  const carried = header.converted_from_quotation_id != null || header.parent_id != null;
  if (rateProblem && carried) header.exchange_rate = null;
  else if (rateProblem) throw invoiceRefusals.exchangeRateRefused(rateProblem);
  const allowances = asked ?? [];
  const context = taxContextFor(defaults, currency);
  const doc = computeInvoice({ currency, allowances_charges: allowances }, lines, context);
  const { total, ...taxColumns } = documentTaxColumns(doc, allowances, context);
  return {
    header: { ...header, currency: doc.currency, org_id: orgId, ...taxColumns, invoicetotal: total },
    lines: lines.map((l, i) => {
      const { invoice_id: _none, ...columns } = lineColumns(orgId, 0, l, doc.lines[i] as LineTaxes, doc.minor_unit);
      return columns;
    }),
    supplied: supplied || undefined,
    series: NUMBER_PREFIX[values.invoicetype],
  };
}

/** What a create draws before its one-statement store (the optimistic create): the invoice's id, one id per line, and the time. */
export interface NewInvoiceDrawn {
  invoiceId: number;
  lineIds: number[];
  now: Date;
}

/**
 * What a new invoice starts with where its plan says nothing: nothing paid, written off, issued or
 * recurring yet, at version 1 (the schema's defaults for these columns, written out by the
 * optimistic create, which gives every column).
 */
const NEW_INVOICE_STARTS = {
  payment_reference: null,
  invoicedue: null,
  comments: null,
  invoicereference: null,
  invoiceterms: null,
  amount_paid: '0.00',
  written_off_amount: '0.00',
  sourceid: null,
  sourcenumber: null,
  sourcetype: null,
  converted_from_quotation_id: null,
  credits_invoice_id: null,
  restock: true,
  chartofaccounts: null,
  invoicejournal: null,
  tradeaccount: null,
  issued_parties: null,
  accounting_currency: null,
  created_by: null,
  recurring_enabled: false,
  recurring_frequency: null,
  recurring_start_date: null,
  recurring_next_run_date: null,
  recurring_next_index: 0,
  recurring_occurrences: 0,
  recurring_generated: 0,
  recurring_status: null,
  recurring_cancellation_reason: null,
  parent_id: null,
  run_date: null,
  validated_at: null,
  cancelled_at: null,
  paid_at: null,
  exchange_rate: null,
  version: 1,
} satisfies Partial<InvoiceRow>;

/**
 * The invoice and its lines exactly as the optimistic create writes them, every column given, so
 * what its reply and event tell is what is stored: the plan's columns over what a new invoice
 * starts with, under the ids drawn, made at the time drawn. `invoicenumber`: the supplied one, or
 * FILLED_IN for the one the store's series takes.
 */
export function newInvoiceRows(plan: NewInvoicePlan, drawn: NewInvoiceDrawn, invoicenumber: string): { row: InvoiceRow; lines: LineRow[] } {
  const header = plan.header as Partial<Record<keyof InvoiceRow, unknown>>;
  const row = {
    ...NEW_INVOICE_STARTS,
    ...header,
    // documentTaxColumns gives them as JSON text; the row holds them as the database answers them.
    allowances_charges: JSON.parse(header.allowances_charges as string) as InvoiceRow['allowances_charges'],
    tax_breakdown: JSON.parse(header.tax_breakdown as string) as InvoiceRow['tax_breakdown'],
    id: drawn.invoiceId,
    invoicenumber,
    created_at: drawn.now,
    updated_at: drawn.now,
  } as InvoiceRow;
  const lines = plan.lines.map(
    (l, i) => ({ ...l, id: drawn.lineIds[i] as number, invoice_id: drawn.invoiceId, created_at: drawn.now }) as LineRow,
  );
  return { row, lines };
}
