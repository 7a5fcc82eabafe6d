import type { invoicing } from '@bo/contracts';
import { dec, parseDateTime, toNumber } from '@bo/kernel';
import { computeDocumentTaxes } from '@bo/billing';
import {
  DEFAULT_PAYMENT_JOURNAL,
  PAYABLE_ACCOUNT,
  RECEIVABLE_ACCOUNT,
  ROUNDING_ACCOUNT,
  TAX_PAYABLE,
  TAX_RECEIVABLE,
} from '../domain/journal';
import type { LineValues, NewInvoice } from '../invoice/decide-new-invoice';

/**
 * A reminder's fee as a customer invoice of its own (`post_fees`, docs/dunning.md "Fees in the
 * journal"). Pure: the letter's fee and the organization's fee tax in, the invoice's columns and its
 * one line out, in the form the invoice creation's own writer takes (insertInvoice); the validate
 * operation's own code then posts it.
 */

/** The VAT a posted fee is invoiced with (`fee_tax`). */
export interface FeeTax {
  category: invoicing.FeeTaxRecord['category'];
  /** Percent, decimal text. */
  rate: string;
  exemption_reason: string | null;
  exemption_code: string | null;
}

/**
 * A late-payment fee is compensation for the delay, not the price of a supply, so no VAT is charged
 * on it. EN 16931's category for that, O, forbids the seller's VAT id on the document (BR-O-02),
 * which every VAT-registered organization states; E with the reason passes beside it.
 */
export const DEFAULT_FEE_TAX: FeeTax = {
  category: 'E',
  rate: '0',
  exemption_reason: 'Late-payment fee: compensation for late payment, not a supply; outside the scope of VAT',
  exemption_code: null,
};

/** The income account a posted fee is credited to unless the organization sets its `fee_account`; its receivable is the reminded invoice's. */
export const FEE_ACCOUNT = '4750 Reminder Fees';

/**
 * The accounts the journal's own postings keep (domain/journal.ts): receivables and payables, the
 * VAT accounts, rounding, the bank. Accounts are named freely (there is no chart table: an invoice's
 * `chartofaccounts` takes any name), but a fee credited to one of these would move the partner's
 * balance, the VAT report or the bank reconciliation as if it were a payment, tax or cash.
 */
const KEPT_ACCOUNTS: ReadonlySet<string> = new Set([
  RECEIVABLE_ACCOUNT,
  PAYABLE_ACCOUNT,
  TAX_PAYABLE,
  TAX_RECEIVABLE,
  ROUNDING_ACCOUNT,
  DEFAULT_PAYMENT_JOURNAL,
]);

/** Why an income account cannot take posted fees (`fee_account`), or null when it can. */
export function feeAccountProblem(account: string): string | null {
  if (!account.trim()) return 'must name an income account, e.g. "4750 Reminder Fees"';
  if (KEPT_ACCOUNTS.has(account.trim()))
    return `${account.trim()} is kept by the journal's own postings (receivables, payables, VAT, rounding, bank): name an income account`;
  return null;
}

/** The fee invoice's `sourcetype`: its `sourceid` is the letter's id, its `sourcenumber` the reminded invoice's number. */
export const FEE_SOURCE = 'dunning_letter';

/** The line's `product_id`: a fee is no catalog product, and the line is stored as never checked against the catalog. */
export const FEE_PRODUCT = 'reminder-fee';

/** What a letter's fee is invoiced with: decided with the letter (decideDunning), completed by the letter's id when stored. */
export interface FeeInvoicePlan {
  partner_id: number;
  /** The reminded invoice's. */
  currency: string;
  /** The letter's date: the fee invoice is dated and due on it. */
  as_of: string;
  /** The reminded invoice's receivable account (its `tradeaccount`); null: the default. */
  tradeaccount: string | null;
  /** The rate the reminded invoice was posted at, when it is in another currency than the books; null otherwise. */
  exchange_rate: string | null;
  /** The reminded invoice's number and the letter's level, which the line names. */
  invoicenumber: string;
  level: number;
  /** The fee as the letter states it, decimal text: the fee invoice's total. */
  fee: string;
  tax: FeeTax;
  /** The income account the fee is credited to (`fee_account`). */
  account: string;
}

/** "Reminder fee: INV-00002, level 2". */
export const feeLineName = (invoicenumber: string, level: number) => `Reminder fee: ${invoicenumber}, level ${level}`;

/**
 * The fee invoice of a stored letter: a customer invoice (`invoiceout`) to the reminded invoice's
 * partner in its currency, dated and due on the letter's date, its receivable the reminded
 * invoice's, its income the organization's `fee_account`, with one line for the fee. The fee is the amount the letter
 * states and the customer pays, so the line's price includes whatever VAT `fee_tax` charges.
 */
export function feeInvoice(plan: FeeInvoicePlan, letterId: number): { values: NewInvoice; lines: LineValues[] } {
  const values: NewInvoice = {
    invoicetype: 'invoiceout',
    partner_id: plan.partner_id,
    invoicestatus: 'draft',
    invoicedatetime: parseDateTime(`${plan.as_of}T00:00:00`),
    invoicedue: plan.as_of,
    currency: plan.currency,
    exchange_rate: plan.exchange_rate,
    chartofaccounts: plan.account,
    tradeaccount: plan.tradeaccount,
    sourcetype: FEE_SOURCE,
    sourceid: String(letterId),
    sourcenumber: plan.invoicenumber,
    restock: true,
    allowances_charges: [],
  };
  const line: LineValues = {
    product_id: FEE_PRODUCT,
    variant_id: null,
    location_id: null,
    product_name: feeLineName(plan.invoicenumber, plan.level),
    description: null,
    sku: null,
    uom: null,
    quantity: '1',
    price: plan.fee,
    discount: '0',
    tax_rate: plan.tax.rate,
    tax_included: true,
    tax_category: plan.tax.category,
    tax_exemption_reason: plan.tax.exemption_reason,
    tax_exemption_code: plan.tax.exemption_code,
    catalog_checked: false,
  };
  return { values, lines: [line] };
}

/**
 * Refuses a fee tax the EN 16931 rules refuse, by the kernel's own rules of a line (rate, exemption
 * reason, VATEX code of the category), its errors named `fee_tax.<field>`. BR-O-02 (no VAT ids beside
 * O) depends on the parties of each fee invoice and is the organization's to heed (docs/dunning.md).
 */
export function checkFeeTax(tax: FeeTax): void {
  const fields: Record<string, string> = {
    tax_rate: 'fee_tax.rate',
    tax_category: 'fee_tax.category',
    tax_exemption_reason: 'fee_tax.exemption_reason',
    tax_exemption_code: 'fee_tax.exemption_code',
  };
  computeDocumentTaxes(
    { currency: null, allowances_charges: [] },
    [{ quantity: '1', price: '1', tax_included: true, ...lineTax(tax) }],
    { rounding: 'line', cash_rounding: null, parties: null },
    (field) => fields[field.replace(/^line_items\.0\./, '')] ?? 'fee_tax',
  );
}

const lineTax = (tax: FeeTax) => ({
  tax_rate: tax.rate,
  tax_category: tax.category,
  tax_exemption_reason: tax.exemption_reason,
  tax_exemption_code: tax.exemption_code,
});

/** The setting as stored (`dunning_settings.fee_tax`, null for the default) to the one a run applies. */
export function feeTaxOf(stored: FeeTax | null): FeeTax {
  return stored ?? DEFAULT_FEE_TAX;
}

export const feeTaxRecord = (tax: FeeTax): invoicing.FeeTaxRecord => ({
  category: tax.category,
  rate: toNumber(tax.rate),
  exemption_reason: tax.exemption_reason,
  exemption_code: tax.exemption_code,
});

/** The request's fee tax as stored: the rate as exact decimal text, absent texts null. */
export function feeTaxFromRequest(input: {
  category: FeeTax['category'];
  rate: string;
  exemption_reason?: string | undefined;
  exemption_code?: string | undefined;
}): FeeTax {
  return {
    category: input.category,
    rate: dec(input.rate).toFixed(),
    exemption_reason: input.exemption_reason?.trim() || null,
    exemption_code: input.exemption_code?.trim().toUpperCase() || null,
  };
}
