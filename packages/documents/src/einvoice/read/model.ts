/**
 * A received e-invoice in one neutral shape, whatever its syntax (UBL 2.1 Invoice or CreditNote,
 * UN/CEFACT CII D16B). Every field names its EN 16931 business term. Amounts, quantities and rates
 * are the document's own decimal text (never a JavaScript number: the importer compares them exactly);
 * dates are YYYY-MM-DD. A field the document leaves out is undefined; nothing is guessed here.
 */

export type ReceivedSyntax = 'ubl' | 'cii';

export interface ReceivedId {
  id: string;
  scheme?: string;
}

export interface ReceivedParty {
  /** BT-27 / BT-44 */
  name?: string;
  /** BT-28 / BT-45 */
  trading_name?: string;
  /** BT-29 / BT-46 */
  identifiers: ReceivedId[];
  /** BT-30 / BT-47 */
  legal_registration_id?: ReceivedId;
  /** BT-31 / BT-48 */
  vat_id?: string;
  /** BT-32 (seller only) */
  tax_registration_id?: string;
  /** BT-34 / BT-49 */
  endpoint_id?: ReceivedId;
  /** BT-35..BT-40 / BT-50..BT-55 */
  address: { line1?: string; line2?: string; city?: string; postcode?: string; subdivision?: string; country?: string };
}

/** BG-20 (document allowance) / BG-21 (document charge) / BG-27, BG-28 (line allowance, charge). */
export interface ReceivedAllowanceCharge {
  charge: boolean;
  /** BT-92 / BT-99 / BT-136 / BT-141 */
  amount: string;
  /** BT-93 / BT-100 / BT-137 / BT-142 */
  base_amount?: string;
  /** BT-94 / BT-101 / BT-138 / BT-143 */
  percent?: string;
  /** BT-95 / BT-102 (document level only) */
  vat_category?: string;
  /** BT-96 / BT-103 (document level only) */
  vat_rate?: string;
  /** BT-97 / BT-104 / BT-139 / BT-144 */
  reason?: string;
  /** BT-98 / BT-105 / BT-140 / BT-145 */
  reason_code?: string;
}

/** BG-23 */
export interface ReceivedVatBreakdown {
  /** BT-116 */
  taxable_amount: string;
  /** BT-117 */
  tax_amount: string;
  /** BT-118 */
  category: string;
  /** BT-119 */
  rate?: string;
  /** BT-120 */
  exemption_reason?: string;
  /** BT-121 */
  exemption_reason_code?: string;
}

/** BG-25 */
export interface ReceivedLine {
  /** BT-126 */
  id: string;
  /** BT-127 */
  note?: string;
  /** BT-129 */
  quantity: string;
  /** BT-130 (UN/ECE rec 20) */
  unit?: string;
  /** BT-131 */
  net_amount: string;
  /** BT-132 */
  order_line_reference?: string;
  /** BT-133 */
  accounting_reference?: string;
  /** BT-134, BT-135 */
  period?: { start?: string; end?: string };
  /** BG-27, BG-28 */
  allowances_charges: ReceivedAllowanceCharge[];
  /** BT-146 */
  net_price: string;
  /** BT-147 */
  price_discount?: string;
  /** BT-148 */
  gross_price?: string;
  /** BT-149 */
  base_quantity?: string;
  /** BT-150 */
  base_quantity_unit?: string;
  /** BT-151 */
  vat_category?: string;
  /** BT-152 */
  vat_rate?: string;
  /** BT-153 */
  name?: string;
  /** BT-154 */
  description?: string;
  /** BT-155 */
  seller_item_id?: string;
  /** BT-156 */
  buyer_item_id?: string;
  /** BT-157 */
  standard_id?: ReceivedId;
}

/** BG-22 */
export interface ReceivedTotals {
  /** BT-106 */
  line_extension?: string;
  /** BT-107 */
  allowances?: string;
  /** BT-108 */
  charges?: string;
  /** BT-109 */
  tax_exclusive?: string;
  /** BT-110 */
  tax?: string;
  /** BT-111 with its currency (BT-6) */
  tax_accounting?: { amount: string; currency: string };
  /** BT-112 */
  tax_inclusive?: string;
  /** BT-113 */
  prepaid?: string;
  /** BT-114 */
  rounding?: string;
  /** BT-115 */
  payable?: string;
}

export interface ReceivedInvoice {
  syntax: ReceivedSyntax;
  /** A UBL CreditNote or type code 381 (or 261, 396, 532: credit note types of UNTDID 1001 EN 16931 allows) */
  kind: 'invoice' | 'credit_note';
  /** BT-24 */
  customization_id?: string;
  /** BT-23 */
  profile_id?: string;
  /** BT-1 */
  number?: string;
  /** BT-2 */
  issue_date?: string;
  /** BT-3 */
  type_code?: string;
  /** BT-5 */
  currency?: string;
  /** BT-6 */
  tax_currency?: string;
  /** BT-9 */
  due_date?: string;
  /** BT-10 */
  buyer_reference?: string;
  /** BT-13 */
  order_reference?: string;
  /** BT-20 */
  payment_terms?: string;
  /** BT-22 */
  notes: string[];
  /** BG-3: BT-25, BT-26 */
  preceding_invoices: { number: string; issue_date?: string }[];
  /** BG-4 */
  seller: ReceivedParty;
  /** BG-7 */
  buyer: ReceivedParty;
  /** BG-16 */
  payment: {
    /** BT-81 */
    means_code?: string;
    /** BT-83 */
    reference?: string;
    /** BT-84 (the first credit transfer account) */
    iban?: string;
    /** BT-85 */
    account_name?: string;
    /** BT-86 */
    bic?: string;
  };
  /** BG-20, BG-21 */
  allowances_charges: ReceivedAllowanceCharge[];
  totals: ReceivedTotals;
  /** BG-23 */
  vat_breakdown: ReceivedVatBreakdown[];
  /** BG-25 */
  lines: ReceivedLine[];
}

/** UNTDID 1001 codes EN 16931 reads as a credit note. */
export const CREDIT_NOTE_TYPE_CODES = new Set(['381', '261', '262', '296', '308', '396', '420', '458', '532']);
