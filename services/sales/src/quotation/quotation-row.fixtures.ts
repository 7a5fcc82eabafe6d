import type { organization } from '@bo/contracts';
import type { OrganizationTaxPolicy, ResolvedLine } from '@bo/billing';
import type { QuotationState } from './quotation-rules';
import type { LineRow, QuotationRow } from './quotation.record';

/** The day the specifications are decided on. */
export const TODAY = '2026-11-29';

/** An organization keeping its books in EUR, rounding VAT per line, with no cash rounding. */
export const EUR_POLICY: OrganizationTaxPolicy = { rounding: 'line', cash_rounding: null, accounting_currency: 'EUR' };

/**
 * The quotation the specifications start from: QUO-00005, a draft of partner 1 in EUR dated 20
 * November 2026 and valid to the end of the year, never converted, holding one line (widgetLineRow):
 * 225.00 + 33.75 VAT = 258.75, as its row stores it.
 */
export const draftQuotationRow = (over: Partial<QuotationRow> = {}): QuotationRow => ({
  id: 5,
  org_id: 1,
  quotation_number: 'QUO-00005',
  quotation_type: 'quotation',
  status: 'draft',
  partner_id: 1,
  quotation_date: new Date('2026-11-20T09:30:00Z'),
  valid_until: '2026-12-31',
  comments: null,
  quotation_reference: null,
  subtotal: '225.00',
  tax_amount: '33.75',
  discount_total: '25.00',
  total: '258.75',
  line_count: 1,
  invoice_id: null,
  invoicenumber: null,
  invoicetype: null,
  converted_at: null,
  convert_key: null,
  conversion_attempted_at: null,
  convert_invoicetype: null,
  convert_user: null,
  conversion_attempts: 0,
  conversion_lease_until: null,
  converted_invoice: null,
  issued_parties: null,
  accounting_currency: null,
  currency: 'EUR',
  exchange_rate: null,
  rounding: 'line',
  cash_rounding: null,
  allowances_charges: [],
  tax_breakdown: [
    { tax_category: 'S', tax_rate: '15', taxable_amount: '225.00', tax_amount: '33.75', exemption_reason: null, exemption_code: null },
  ],
  allowance_total: '0.00',
  charge_total: '0.00',
  vat_total: '33.75',
  rounding_amount: '0.00',
  created_by: 'u1',
  updated_by: 'u1',
  created_at: new Date('2026-11-20T09:31:00Z'),
  updated_at: new Date('2026-11-20T09:31:00Z'),
  ...over,
});

/** QUO-00005's line as stored: 5 widgets at 50 less 10%, at 15% VAT, numerics as the database writes them. */
export const widgetLineRow = (over: Partial<LineRow> = {}): LineRow => ({
  id: 11,
  org_id: 1,
  quotation_id: 5,
  product_id: '7',
  variant_id: null,
  location_id: null,
  product_name: 'Widget',
  sku: null,
  uom: null,
  description: 'Blue widget',
  quantity: '5.0000',
  price: '50.0000',
  discount: '10.0000',
  tax_rate: '15.0000',
  tax_included: false,
  tax_category: 'S',
  tax_exemption_reason: null,
  tax_exemption_code: null,
  reverse_charge_rate: null,
  subtotal: '225.00',
  tax_amount: '33.75',
  total: '258.75',
  discount_amount: '25.00',
  ...over,
});

/** What a change of QUO-00005 decides on, as its load reads it. */
export const quotationState = (over: Partial<QuotationState> = {}): QuotationState => ({
  quotation: draftQuotationRow(),
  lines: [widgetLineRow()],
  policy: EUR_POLICY,
  today: TODAY,
  ...over,
});

/** A line as the catalog check completes it (resolveCatalogLines): product 8, no name or description of its own. */
export const resolvedLine = (over: Partial<ResolvedLine> = {}): ResolvedLine => ({
  product_id: '8',
  variant_id: null,
  location_id: null,
  product_name: 'Product 8',
  description: null,
  price: '10.10',
  tax_rate: '20',
  tax_category: null,
  sku: null,
  uom: null,
  quantity: '1.5',
  tax_included: false,
  ...over,
});

/** The organization's profile as the partners service answers it: Acme Ltd, with a VAT id and no logo. */
export const acmeProfile = (over: Partial<organization.ProfileRecord> = {}): organization.ProfileRecord =>
  ({
    org_id: 1,
    legal_name: 'Acme Ltd',
    trading_name: null,
    vat_id: 'IE1234567T',
    iban: null,
    bic: null,
    default_currency: 'EUR',
    logo_png: null,
    ...over,
  }) as organization.ProfileRecord;
