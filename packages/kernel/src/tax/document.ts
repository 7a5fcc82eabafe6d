import type { Dec, DecimalLike } from '../money';
import type { VatCategory } from './categories';

/**
 * How a document's amounts are rounded (docs/invoicing.md, "Taxes and rounding"):
 * - `line`: each line, allowance and charge is rounded on its own, as it is printed, each category's
 *   VAT is what its rows' VAT adds up to, and the amount due is what the rows add up to (the line
 *   arithmetic of every document before this policy existed).
 * - `document`: the VAT of each (category, rate) is rounded once, on its base, and shared out over the
 *   lines; the net of tax-inclusive prices is taken out of their total, not line by line.
 * Either way the EN 16931 figures hold exactly; what the printed rows add up to beyond them is the
 * rounding amount (BT-114).
 */
export const ROUNDING_POLICIES = ['line', 'document'] as const;
export type RoundingPolicy = (typeof ROUNDING_POLICIES)[number];
export const DEFAULT_ROUNDING: RoundingPolicy = 'line';

/** A document line as the tax calculation reads it: the fields of a stored line, plus its VAT category. */
export interface TaxLineInput {
  quantity: DecimalLike;
  price: DecimalLike;
  /** Percent off, 0 to 100. */
  discount?: DecimalLike | null;
  /** Percent, 0 to 100. */
  tax_rate: DecimalLike;
  tax_included: boolean;
  /** One of VAT_CATEGORIES; absent: S when the rate is above 0, Z when it is 0. */
  tax_category?: string | null;
  /** BT-120: why no VAT is charged, in words. */
  tax_exemption_reason?: string | null;
  /** BT-121: the VATEX code of that reason. */
  tax_exemption_code?: string | null;
  /**
   * The VAT the line carries as its document states it, instead of the one computed (statedTaxes):
   * a vendor bill made by import, whose supplier's VAT per category (BT-117) is kept.
   */
  stated_tax?: DecimalLike | null;
}

/** A document-level allowance (BG-20, `charge: false`) or charge (BG-21, `charge: true`); amounts before VAT. */
export interface AllowanceChargeInput {
  charge: boolean;
  /** BT-92 / BT-99. Give it or `percent`. */
  amount?: DecimalLike | null;
  /** BT-94 / BT-101: percent of `base_amount`. */
  percent?: DecimalLike | null;
  /** BT-93 / BT-100; absent: the net of the document's lines of the same category and rate. */
  base_amount?: DecimalLike | null;
  /** BT-97 / BT-104. */
  reason?: string | null;
  /** BT-98 (UNCL 5189) / BT-105 (UNCL 7161). */
  reason_code?: string | null;
  tax_category?: string | null;
  tax_rate: DecimalLike;
  /** For a category that needs a reason when no line of it gives one (an exempt charge on a document without exempt lines). */
  tax_exemption_reason?: string | null;
  tax_exemption_code?: string | null;
  /** The VAT the row takes off (an allowance) or adds (a charge) as its document states it, as `tax` reads it (TaxLineInput.stated_tax). */
  stated_tax?: DecimalLike | null;
}

/** The parties' VAT identifiers (BT-31, BT-48), as the document will state them. */
export interface TaxParties {
  seller_vat_id: string | null;
  buyer_vat_id: string | null;
}

export interface TaxDocumentInput {
  /** ISO 4217 code; null: no currency known yet, amounts in hundredths as every document before currencies. */
  currency: string | null;
  /** Absent: DEFAULT_ROUNDING. */
  rounding?: string | null;
  /** Round the amount due to a multiple of this (0.05 for 5-cent coins), the difference being BT-114. */
  cash_rounding?: DecimalLike | null;
  lines: readonly TaxLineInput[];
  allowances_charges?: readonly AllowanceChargeInput[] | null;
  /** The VAT ids the categories need are checked against these; null: not known yet, not checked. */
  parties: TaxParties | null;
}

/** A refusal naming the field it is about, as the API's `errors[]` carry them. */
export interface TaxFieldError {
  field: string;
  message: string;
}

/** A line's amounts, each a whole number of the currency's minor unit. */
export interface LineTaxes {
  tax_category: VatCategory;
  tax_rate: Dec;
  /** BT-131, the line net amount: the line's `subtotal`. */
  net: Dec;
  /** The VAT the line is printed with: its `tax_amount`. */
  tax: Dec;
  /** net + tax: the line's `total`. */
  gross: Dec;
  /** What the discount took off, before tax or including it as the price did. */
  discount_amount: Dec;
}

export interface AllowanceChargeTaxes {
  charge: boolean;
  tax_category: VatCategory;
  tax_rate: Dec;
  /** BT-92 / BT-99. */
  amount: Dec;
  /** BT-93 / BT-100, when a percent made the amount. */
  base_amount: Dec | null;
  /** BT-94 / BT-101. */
  percent: Dec | null;
  reason: string | null;
  reason_code: string | null;
  /** The VAT the allowance takes off (or the charge adds), as printed. */
  tax: Dec;
  /** amount + tax. */
  gross: Dec;
}

/** BG-23: one per (category, rate), in the order the document first names them. */
export interface VatBreakdown {
  /** BT-118. */
  tax_category: VatCategory;
  /** BT-119 (O states none: written 0 here). */
  tax_rate: Dec;
  /** BT-116: the lines' nets, less the allowances, plus the charges of this category and rate. */
  taxable_amount: Dec;
  /** BT-117: under `document` BT-116 x BT-119 / 100 rounded half-up to the minor unit; under `line` what the category's rows' VAT adds up to (calculate.ts `categoryTaxOfRows`). */
  tax_amount: Dec;
  /** BT-120. */
  exemption_reason: string | null;
  /** BT-121 (for AE, K, G and O the category's own code when the document names none). */
  exemption_code: string | null;
}

export interface DocumentTotals {
  /** BT-106: Σ line nets. */
  line_net_total: Dec;
  /** BT-107: Σ allowance amounts. */
  allowance_total: Dec;
  /** BT-108: Σ charge amounts. */
  charge_total: Dec;
  /** BT-109 = BT-106 - BT-107 + BT-108. */
  tax_exclusive_amount: Dec;
  /** BT-110: Σ BT-117. */
  tax_total: Dec;
  /** BT-112 = BT-109 + BT-110. */
  tax_inclusive_amount: Dec;
  /** BT-114 = rounding_from_lines + rounding_to_cash. */
  rounding_amount: Dec;
  /** BT-115 = BT-112 + BT-114 (nothing is prepaid): what the customer pays. */
  payable_amount: Dec;
  /** What the printed lines, allowances and charges add up to beyond BT-112 (gross prices kept, rows rounded on their own). */
  rounding_from_lines: Dec;
  /** What cash rounding adds to that sum to reach the amount due. */
  rounding_to_cash: Dec;
}

export interface TaxDocument {
  currency: string | null;
  /** Decimals of every amount below. */
  minor_unit: number;
  rounding: RoundingPolicy;
  lines: LineTaxes[];
  allowances_charges: AllowanceChargeTaxes[];
  breakdown: VatBreakdown[];
  totals: DocumentTotals;
}

export type TaxDecision = { ok: true; document: TaxDocument } | { ok: false; errors: TaxFieldError[] };
