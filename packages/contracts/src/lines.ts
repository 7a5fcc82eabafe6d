import { ROUNDING_POLICIES, VAT_CATEGORIES, type LineFigures } from '@bo/kernel';
import { z } from 'zod';
import { atMost, exchangeRate, money, notBlank, optionalText, percentage, plainString, quantity, stringId } from './fields';
import type { BusinessRule } from './operation';
import { currencyField } from './organization/schemas';

/** EN 16931 VAT category of a line, allowance or charge (docs/invoicing.md "Taxes and rounding"). */
export const taxCategoryField = z.enum(VAT_CATEGORIES);
/** BT-121: a VATEX code (`VATEX-EU-IC`), checked against the CEF list by the tax rules. */
const exemptionCode = optionalText(40)
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim().toUpperCase()))
  .optional();
const exemptionReason = optionalText(500)
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()))
  .optional();

/** The VAT fields of a line as entered: its category and exemption; the rules between them are the kernel's. */
const lineTaxInput = {
  tax_category: taxCategoryField.optional(),
  tax_exemption_reason: exemptionReason,
  tax_exemption_code: exemptionCode,
  /** On a reverse-charge (AE) line of a vendor bill: the rate the organization self-assesses (docs/invoicing.md "Journal entries"). */
  reverse_charge_rate: percentage().optional(),
};

/**
 * A document line as quotations and invoices receive it (spec 2.6). Client-sent amounts are
 * accepted but the server recomputes them; `product_id` arrives as a string or an integer and must
 * name a live catalog product of the organization (a `service` product for work and fees).
 * `variant_id` (a variant of that product) and `location_id` (where stock moves when the invoice
 * is validated) are optional and checked the same way. Without `price`, `product_name` or
 * `description` the line takes the catalog's (the variant's price when it names one); without
 * `tax_rate` (and `tax_category`) the catalog's default of the variant, else of the product.
 */
export const lineItemInput = z.object({
  product_id: z.union([plainString().trim().check(notBlank(), atMost(64)), z.number().int()]).transform(String),
  variant_id: stringId.optional(),
  location_id: stringId.optional(),
  product_name: optionalText(200),
  description: optionalText(2000, 'multiline'),
  quantity: quantity({ positive: true }),
  price: quantity({ min: 0 }).optional(),
  discount: percentage().optional(),
  tax_rate: percentage().optional(),
  tax_included: z.boolean(),
  ...lineTaxInput,
  subtotal: money().optional(),
  tax_amount: money().optional(),
  total: money().optional(),
});
export type LineItemInput = z.output<typeof lineItemInput>;

/**
 * A document-level allowance (`charge: false`, EN 16931 BG-20) or charge (`charge: true`, BG-21),
 * before VAT: `amount`, or `percent` of `base_amount` (default: the net of the document's lines of
 * the same category and rate). A reason or a reason code (UNCL 5189 / 7161) is required.
 */
export const allowanceChargeInput = z.object({
  charge: z.boolean(),
  amount: quantity({ min: 0 }).optional(),
  percent: quantity({ min: 0 }).optional(),
  base_amount: quantity({ min: 0 }).optional(),
  reason: optionalText(500),
  reason_code: optionalText(10)
    .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()))
    .optional(),
  tax_category: taxCategoryField.optional(),
  tax_rate: percentage(),
  tax_exemption_reason: exemptionReason,
  tax_exemption_code: exemptionCode,
  /** On a reverse-charge (AE) allowance or charge of a vendor bill: the rate self-assessed on it. */
  reverse_charge_rate: percentage().optional(),
});
export type AllowanceChargeInput = z.output<typeof allowanceChargeInput>;

/** Allowances and charges per document: enough for any real document, few enough to keep it one request. */
export const MAX_ALLOWANCES_CHARGES = 50;

/** The tax fields a quotation or an invoice takes on create (docs/invoicing.md "Taxes and rounding"). */
export const documentTaxInput = {
  allowances_charges: z
    .array(allowanceChargeInput)
    .max(MAX_ALLOWANCES_CHARGES, `must have at most ${MAX_ALLOWANCES_CHARGES} entries`)
    .optional(),
  /** ISO 4217; default the partner's currency, else the organization's. */
  currency: currencyField.optional(),
  /** Units of the organization's accounting currency per 1 unit of the document's. */
  exchange_rate: exchangeRate().optional(),
};

/** The rules of documentTaxInput beyond its schema, stated by every operation that takes its fields. */
export const allowancesChargesRule: BusinessRule = {
  field: 'allowances_charges',
  rule: 'each in a VAT category that agrees with its tax_rate (S and L above 0, M 0 or more, the others at 0), with an exemption where the category needs one; reverse_charge_rate on AE only (EN 16931)',
};
/**
 * The rules of a line's VAT fields beyond their schema (docs/invoicing.md "Categories"), stated on
 * `line_items` by a create and on the line's own `tax_rate` by an add_line. IGIC (L) at 0 is refused
 * although EN 16931 allows it: the CII rules of the official artefacts refuse it (BR-AF-05), and an
 * accepted document renders as a valid e-invoice in both syntaxes.
 */
export const lineTaxRule = (field: 'line_items' | 'tax_rate'): BusinessRule => ({
  field,
  rule: 'a VAT category that agrees with tax_rate: S and L above 0 (L at 0 fails the CII rule BR-AF-05), M 0 or more, Z, E, AE, K, G, O at 0; E, AE, K, G, O with tax_exemption_reason or tax_exemption_code from the VATEX list; reverse_charge_rate on AE only (EN 16931)',
});
/** A line added on its own names its reverse-charge rate at the top of the body: stated there too. */
export const reverseChargeRateRule: BusinessRule = {
  field: 'reverse_charge_rate',
  rule: 'only on a line in tax_category AE (reverse charge)',
};
/**
 * The VAT ids a category needs of the parties (BR-AE-02..04, BR-IC-02..04, BR-G-02, BR-AF-02,
 * BR-AG-02), checked when a document is issued (a quotation sent, an invoice validated): the parties
 * are no field of the request but the organization's profile and the partner, named `seller.vat_id`
 * and `buyer.vat_id` in the refusal.
 */
export const partyVatIdRules: readonly BusinessRule[] = [
  {
    field: 'seller.vat_id',
    rule: "set in the organization's profile when the document is issued with an AE, K, G, L or M line, allowance or charge (EN 16931)",
  },
  { field: 'buyer.vat_id', rule: 'set on the partner when the document is issued with an AE or K line, allowance or charge (EN 16931)' },
];
export const exchangeRateRule: BusinessRule = {
  field: 'exchange_rate',
  rule: "other than 1 only on a document in another currency than the organization's accounting currency",
};

/**
 * Fields of a line as quotations and invoices answer it; each adds its id and its document's id.
 * One schema for each field of the kernel's line (LineFigures), no more and no fewer.
 */
export const lineRecordFields = {
  product_id: z.string(),
  variant_id: z.string().nullable(),
  location_id: z.string().nullable(),
  product_name: z.string().nullable(),
  /** Snapshot of the catalog product (or variant) when the line was made; later catalog edits leave it. */
  sku: z.string().nullable(),
  uom: z.string().nullable(),
  description: z.string().nullable(),
  quantity: z.number(),
  price: z.number(),
  discount: z.number(),
  tax_rate: z.number(),
  tax_included: z.boolean(),
  /** The EN 16931 VAT category (S, Z, E, AE, K, G, O, L, M). */
  tax_category: z.string(),
  tax_exemption_reason: z.string().nullable(),
  tax_exemption_code: z.string().nullable(),
  reverse_charge_rate: z.number().nullable(),
  /** BT-131, the line's net amount. */
  subtotal: z.number(),
  tax_amount: z.number(),
  total: z.number(),
} satisfies { [K in keyof LineFigures]-?: z.ZodType<LineFigures[K]> };

/** An allowance or charge as documents answer it, with the amount and VAT the calculation gave it. */
export const allowanceChargeRecord = z.object({
  charge: z.boolean(),
  amount: z.number(),
  percent: z.number().nullable(),
  base_amount: z.number().nullable(),
  reason: z.string().nullable(),
  reason_code: z.string().nullable(),
  tax_category: z.string(),
  tax_rate: z.number(),
  tax_exemption_reason: z.string().nullable(),
  tax_exemption_code: z.string().nullable(),
  reverse_charge_rate: z.number().nullable(),
  /** The VAT this row adds (a charge) or takes off (an allowance, negative), as printed. */
  tax_amount: z.number(),
});
export type AllowanceChargeRecord = z.infer<typeof allowanceChargeRecord>;

/** One VAT breakdown row (EN 16931 BG-23) per category and rate. */
export const taxBreakdownRecord = z.object({
  tax_category: z.string(),
  tax_rate: z.number(),
  /** BT-116. */
  taxable_amount: z.number(),
  /** BT-117. */
  tax_amount: z.number(),
  /** BT-120. */
  exemption_reason: z.string().nullable(),
  /** BT-121. */
  exemption_code: z.string().nullable(),
});
export type TaxBreakdownRecord = z.infer<typeof taxBreakdownRecord>;

/** What quotations and invoices answer of their taxes, beside `subtotal` (BT-109), `tax_amount` and their total (BT-115). */
export const documentTaxRecord = {
  /** ISO 4217; null only on a document made when neither its partner nor the organization had a currency. */
  currency: z.string().nullable(),
  /** Units of the accounting currency per 1 document unit; null when not given (same currency, or taken from the rate table when validated). */
  exchange_rate: z.number().nullable(),
  /** The rounding policy the amounts were computed with (the organization's; frozen when the document is issued). */
  rounding: z.enum(ROUNDING_POLICIES),
  allowances_charges: z.array(allowanceChargeRecord),
  tax_breakdown: z.array(taxBreakdownRecord),
  /** BT-107. */
  allowance_total: z.number(),
  /** BT-108. */
  charge_total: z.number(),
  /** BT-110: Σ of the breakdown's VAT. */
  vat_total: z.number(),
  /** BT-114: what the printed rows and cash rounding add to BT-112 to make the amount due. */
  rounding_amount: z.number(),
};
