import type { ReplyOf, sales } from '@bo/contracts';
import type { DocumentPartiesView } from '@bo/documents';
import { formatDate, formatDateTime, lineFigures, toNumber, type LineTaxes } from '@bo/kernel';
import { documentTaxFields, type DocumentTaxRow, type StoredParties } from '@bo/billing';
import { quotationLineAmounts, type PricedLine } from './quotation-lines';
import { effectiveStatus, type StoredStatus } from './quotation-status';

export interface QuotationRow extends DocumentTaxRow {
  id: number;
  org_id: number;
  quotation_number: string;
  quotation_type: sales.QuotationType;
  status: StoredStatus;
  partner_id: number;
  quotation_date: Date;
  valid_until: string;
  comments: string | null;
  quotation_reference: string | null;
  subtotal: string;
  tax_amount: string;
  discount_total: string;
  total: string;
  line_count: number;
  invoice_id: number | null;
  invoicenumber: string | null;
  invoicetype: string | null;
  converted_at: Date | null;
  /** Conversion bookkeeping: see migration 003 and conversion/conversion.ts. */
  convert_key: string | null;
  conversion_attempted_at: Date | null;
  convert_invoicetype: sales.SourceInvoiceRequest['invoicetype'] | null;
  convert_user: string | null;
  conversion_attempts: number;
  conversion_lease_until: Date | null;
  converted_invoice: ReplyOf<typeof sales.convertQuotation>['invoice'] | null;
  /** The parties frozen when the quotation was sent (issued-snapshot.ts); null on drafts. */
  issued_parties: StoredParties<DocumentPartiesView> | null;
  /** The organization's accounting currency, frozen with the parties (migration 010); null beside frozen parties: it had none. */
  accounting_currency: string | null;
  /** Who made it and who changed it last (actor.ts); null when a caller named nobody. */
  created_by: string | null;
  updated_by: string | null;
  created_at: Date;
  updated_at: Date;
}

/** A stored line: the priced line's fields, with its amounts as numeric strings. */
export interface LineRow extends Omit<PricedLine, 'amounts' | 'tax_category'> {
  id: number;
  tax_category: string;
  org_id: number;
  quotation_id: number;
  subtotal: string;
  tax_amount: string;
  total: string;
  discount_amount: string;
}

export interface ListRow extends QuotationRow {
  partnername: string | null;
  display_name: string | null;
}

export function toLineRecord(row: LineRow): sales.QuotationLineRecord {
  return { id: row.id, quotation_id: row.quotation_id, ...lineFigures(row) };
}

function header(row: QuotationRow, today: string) {
  return {
    id: row.id,
    orgid: row.org_id,
    quotation_number: row.quotation_number,
    quotation_type: row.quotation_type,
    quotation_status: effectiveStatus(row.status, formatDate(row.valid_until) as string, today),
    quotation_date: formatDateTime(row.quotation_date) as string,
    valid_until: formatDate(row.valid_until) as string,
    comments: row.comments,
    quotation_reference: row.quotation_reference,
    subtotal: toNumber(row.subtotal),
    tax_amount: toNumber(row.tax_amount),
    discount_total: toNumber(row.discount_total),
    quotation_total: toNumber(row.total),
    ...documentTaxFields(row),
    invoice_id: row.invoice_id,
    invoicenumber: row.invoicenumber,
    created_at: formatDateTime(row.created_at) as string,
    updated_at: formatDateTime(row.updated_at) as string,
  };
}

export function toQuotationRecord(row: QuotationRow, lines: LineRow[], today: string): sales.QuotationRecord {
  return { ...header(row, today), partner: String(row.partner_id), line_items: lines.map(toLineRecord) };
}

export function toListRecord(row: ListRow, today: string): sales.QuotationListRecord {
  return { ...header(row, today), partner: { id: row.partner_id, partnername: row.partnername, display_name: row.display_name } };
}

/** The stored form of a priced line, with the amounts the quotation's calculation gave it. */
export function lineRow(orgId: number, quotationId: number, l: PricedLine, taxes: LineTaxes, places: number): Omit<LineRow, 'id'> {
  return {
    org_id: orgId,
    quotation_id: quotationId,
    product_id: l.product_id,
    variant_id: l.variant_id,
    location_id: l.location_id,
    product_name: l.product_name,
    sku: l.sku,
    uom: l.uom,
    description: l.description,
    quantity: l.quantity,
    price: l.price,
    discount: l.discount,
    tax_rate: l.tax_rate,
    tax_included: l.tax_included,
    tax_exemption_reason: l.tax_exemption_reason ?? null,
    tax_exemption_code: l.tax_exemption_code ?? null,
    reverse_charge_rate: l.reverse_charge_rate ?? null,
    ...quotationLineAmounts(taxes, places),
  };
}
