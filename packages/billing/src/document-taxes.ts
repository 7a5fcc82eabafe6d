import type { AllowanceChargeInput, AllowanceChargeRecord, TaxBreakdownRecord } from '@bo/contracts';
import {
  dec,
  decideDocumentTaxes,
  documentMinorUnit,
  DEFAULT_ROUNDING,
  toNumber,
  type AllowanceChargeInput as KernelAllowanceCharge,
  type DecimalLike,
  type LineTaxes,
  type RoundingPolicy,
  type TaxDocument,
  type TaxDocumentInput,
  type TaxParties,
} from '@bo/kernel';
import type { Knex } from '@bo/runtime';
import { documentTaxRefusals } from './billing-refusals';
import { settingsReading, type OrganizationSettings, type SettingsReading } from './read-model/organization-settings';

/**
 * The taxes of a quotation or an invoice, shared by sales and invoicing (docs/invoicing.md, "Taxes
 * and rounding"): the allowances and charges as a document stores them, the kernel's decision turned
 * into a refusal or into the columns each service stores, and the answer's tax fields. Which stored
 * rows make a document's kernel input is each service's own module (invoice/taxes.ts,
 * quotation/taxes.ts).
 */

/** An allowance or charge as a document stores it (a JSON array column): what was asked, and what the calculation gave it. */
export interface StoredAllowanceCharge {
  charge: boolean;
  amount: string | null;
  percent: string | null;
  base_amount: string | null;
  reason: string | null;
  reason_code: string | null;
  tax_category: string | null;
  tax_rate: string;
  tax_exemption_reason: string | null;
  tax_exemption_code: string | null;
  reverse_charge_rate: string | null;
  /** The VAT the row carries as its document states it (a vendor bill made by import, the kernel's stated_tax); absent: computed. */
  stated_tax?: string | null;
  /** The calculation's: the amount (BT-92 / BT-99), the base a percent was taken of, the category, and the VAT the row moves. */
  computed?: { amount: string; base_amount: string | null; tax_category: string; tax: string };
}

/** A breakdown row as stored (a JSON array column). */
export interface StoredBreakdown {
  tax_category: string;
  tax_rate: string;
  taxable_amount: string;
  tax_amount: string;
  exemption_reason: string | null;
  exemption_code: string | null;
}

/** A request's allowances and charges as stored, before the calculation. */
export function allowancesFromRequest(input: readonly AllowanceChargeInput[] | undefined): StoredAllowanceCharge[] {
  return (input ?? []).map((a) => ({
    charge: a.charge,
    amount: a.amount ?? null,
    percent: a.percent ?? null,
    base_amount: a.base_amount ?? null,
    reason: a.reason?.trim() || null,
    reason_code: a.reason_code ?? null,
    tax_category: a.tax_category ?? null,
    tax_rate: a.tax_rate,
    tax_exemption_reason: a.tax_exemption_reason ?? null,
    tax_exemption_code: a.tax_exemption_code ?? null,
    reverse_charge_rate: a.reverse_charge_rate ?? null,
  }));
}

/** The kernel's reading of stored allowances and charges. */
export function kernelAllowances(stored: readonly StoredAllowanceCharge[]): KernelAllowanceCharge[] {
  return stored.map((a) => ({
    charge: a.charge,
    amount: a.amount,
    percent: a.percent,
    base_amount: a.base_amount,
    reason: a.reason,
    reason_code: a.reason_code,
    tax_category: a.tax_category,
    tax_rate: a.tax_rate,
    tax_exemption_reason: a.tax_exemption_reason,
    tax_exemption_code: a.tax_exemption_code,
    ...(a.stated_tax ? { stated_tax: a.stated_tax } : {}),
  }));
}

/** The rounding policy and parties a document's taxes are computed with. */
export interface TaxContext {
  rounding: RoundingPolicy;
  cash_rounding: string | null;
  /** The VAT ids the categories need are checked against these (validation, sending); null: not checked yet. */
  parties: TaxParties | null;
}

/** The line fields the calculation reads: a stored line, or one about to be stored. */
export interface TaxedLine {
  quantity: string;
  price: string;
  discount?: string | null;
  tax_rate: string;
  tax_included: boolean;
  tax_category?: string | null;
  tax_exemption_reason?: string | null;
  tax_exemption_code?: string | null;
  reverse_charge_rate?: string | null;
  /** The VAT as the line's document states it (a vendor bill made by import, invoicing 056); absent or null: computed. */
  stated_tax?: string | null;
}

/** A document's stored rows as the kernel's calculation reads them (each service names its own: invoiceTaxInput, quotationTaxInput). */
export function documentTaxInput(
  doc: { currency: string | null; allowances_charges: readonly StoredAllowanceCharge[] },
  lines: readonly TaxedLine[],
  context: TaxContext,
): TaxDocumentInput {
  return {
    currency: doc.currency,
    rounding: context.rounding,
    cash_rounding: context.cash_rounding,
    parties: context.parties,
    lines: lines.map((l) => ({
      quantity: l.quantity,
      price: l.price,
      discount: l.discount ?? '0',
      tax_rate: l.tax_rate,
      tax_included: l.tax_included,
      tax_category: l.tax_category ?? null,
      tax_exemption_reason: l.tax_exemption_reason ?? null,
      tax_exemption_code: l.tax_exemption_code ?? null,
      ...(l.stated_tax !== null && l.stated_tax !== undefined ? { stated_tax: l.stated_tax } : {}),
    })),
    allowances_charges: kernelAllowances(doc.allowances_charges),
  };
}

/** The document's taxes with `context`, or a 400 naming what the rules refuse (reverse_charge_rate off AE rows included). */
export function computeDocumentTaxes(
  doc: { currency: string | null; allowances_charges: readonly StoredAllowanceCharge[] },
  lines: readonly TaxedLine[],
  context: TaxContext,
  naming?: FieldNaming,
): TaxDocument {
  checkReverseChargeRates(lines, doc.allowances_charges, naming);
  return decideTaxes(documentTaxInput(doc, lines, context), naming);
}

/** The policy a document's stored amounts were computed with (an issued one's, frozen). */
export function storedTaxContext(
  doc: { rounding: RoundingPolicy | null; cash_rounding: string | null },
  parties: TaxParties | null = null,
): TaxContext {
  return { rounding: doc.rounding ?? DEFAULT_ROUNDING, cash_rounding: doc.cash_rounding, parties };
}

/**
 * A stored document's taxes for its render (PDF, UBL, CII): the kernel's decision on its stored rows
 * with the policy they were stored with (`storedTaxContext`), so it states exactly the figures its
 * columns hold. Only a rule made stricter since the document was written can refuse it: a 400 naming
 * what the rules now refuse, never a render that disagrees with them.
 */
export function storedDocumentTaxes(input: TaxDocumentInput, what: string): TaxDocument {
  const decision = decideDocumentTaxes(input);
  if (decision.ok) return decision.document;
  throw documentTaxRefusals.storedTaxesRefusedNow(what, decision.errors.map((e) => `${e.field}: ${e.message}`).join('; '));
}

/**
 * The accounting currency and exchange rate a document states its VAT in besides its own currency
 * (BT-6, BT-111): frozen with the parties of an issued document (`accounting_currency` beside
 * `issued_parties`), the organization's now on a draft. Null when the document is in that currency,
 * or when either is unknown (no accounting currency, no rate): the document then states none.
 */
export function documentAccounting(
  currency: string | null,
  accountingCurrency: string | null,
  exchangeRate: string | null,
): { currency: string; exchange_rate: string } | null {
  if (!currency || !accountingCurrency || exchangeRate === null) return null;
  if (currency.trim().toUpperCase() === accountingCurrency.trim().toUpperCase()) return null;
  return { currency: accountingCurrency, exchange_rate: exchangeRate };
}

/** The VAT ids a document states: the seller's and the buyer's as its parties show them. */
export function taxParties(parties: { seller: unknown; buyer: unknown }): TaxParties {
  const vat = (p: unknown) => ((p as { vat_id?: string | null }).vat_id ?? '').trim() || null;
  return { seller_vat_id: vat(parties.seller), buyer_vat_id: vat(parties.buyer) };
}

/** How refusals of a single added line are named: the line's own fields (`tax_rate`), not `line_items.<n>.tax_rate`. */
export type FieldNaming = (field: string) => string;

/**
 * The document's taxes, or a 400 naming each field the rules refuse (`line_items.2.tax_category`,
 * `allowances_charges.0.reason`, `buyer.vat_id`, `currency`); nothing is written before it.
 */
export function decideTaxes(input: TaxDocumentInput, naming: FieldNaming = (f) => f): TaxDocument {
  const decision = decideDocumentTaxes(input);
  if (decision.ok) {
    const t = decision.document.totals;
    if ([t.payable_amount, t.tax_exclusive_amount, t.line_net_total].some((a) => a.abs().gte(MAX_DOCUMENT_AMOUNT))) {
      const message = `the document's amounts reach ${MAX_DOCUMENT_AMOUNT}: too large to book`;
      throw documentTaxRefusals.amountsTooLarge(message);
    }
    return decision.document;
  }
  const errors = decision.errors.map((e) => ({ field: naming(e.field), message: `${naming(e.field)}: ${e.message}` }));
  throw documentTaxRefusals.taxesRefused(errors);
}

/** Amount columns (numeric(20, 4)) hold less than 10^16; a document stays well below. */
export const MAX_DOCUMENT_AMOUNT = 1e15;

/** A line's stored amounts from its calculation, each with its currency's decimals (JPY 0, EUR 2, BHD 3, CLF 4). */
export function lineAmountColumns(
  line: LineTaxes,
  places: number,
): { tax_category: string; subtotal: string; tax_amount: string; total: string } {
  return {
    tax_category: line.tax_category,
    subtotal: line.net.toFixed(places),
    tax_amount: line.tax.toFixed(places),
    total: line.gross.toFixed(places),
  };
}

/**
 * Whether a stored line already holds the amounts its calculation gives (`lineAmountColumns`), by
 * value (`10.5` is `10.50`): a document's store writes again only the lines that do not.
 */
export function lineAmountsUnchanged(
  stored: { tax_category: string; subtotal: DecimalLike; tax_amount: DecimalLike; total: DecimalLike },
  columns: { tax_category: string; subtotal: string; tax_amount: string; total: string },
): boolean {
  return (
    stored.tax_category === columns.tax_category &&
    dec(stored.subtotal).equals(columns.subtotal) &&
    dec(stored.tax_amount).equals(columns.tax_amount) &&
    dec(stored.total).equals(columns.total)
  );
}

/**
 * The document's stored tax figures: `subtotal` is BT-109, `tax_amount` what the rows' VAT adds up to
 * (the amount due less BT-109, so BT-110 + BT-114), `total` the amount due (BT-115).
 */
export function documentTaxColumns(doc: TaxDocument, stored: readonly StoredAllowanceCharge[], context: TaxContext) {
  const t = doc.totals;
  const places = doc.minor_unit;
  const allowances: StoredAllowanceCharge[] = stored.map((a, k) => {
    const c = doc.allowances_charges[k];
    return c
      ? {
          ...a,
          computed: {
            amount: c.amount.toFixed(),
            base_amount: c.base_amount === null ? null : c.base_amount.toFixed(),
            tax_category: c.tax_category,
            tax: c.tax.toFixed(),
          },
        }
      : a;
  });
  const breakdown: StoredBreakdown[] = doc.breakdown.map((b) => ({
    tax_category: b.tax_category,
    tax_rate: b.tax_rate.toFixed(),
    taxable_amount: b.taxable_amount.toFixed(),
    tax_amount: b.tax_amount.toFixed(),
    exemption_reason: b.exemption_reason,
    exemption_code: b.exemption_code,
  }));
  return {
    subtotal: t.tax_exclusive_amount.toFixed(places),
    tax_amount: t.payable_amount.minus(t.tax_exclusive_amount).toFixed(places),
    total: t.payable_amount.toFixed(places),
    allowance_total: t.allowance_total.toFixed(places),
    charge_total: t.charge_total.toFixed(places),
    vat_total: t.tax_total.toFixed(places),
    rounding_amount: t.rounding_amount.toFixed(places),
    rounding: context.rounding,
    cash_rounding: context.cash_rounding,
    allowances_charges: JSON.stringify(allowances),
    tax_breakdown: JSON.stringify(breakdown),
  };
}

/** The tax columns every document row has (invoicing 013, sales 009). */
export interface DocumentTaxRow {
  currency: string | null;
  exchange_rate: string | null;
  rounding: RoundingPolicy | null;
  cash_rounding: string | null;
  allowances_charges: StoredAllowanceCharge[];
  tax_breakdown: StoredBreakdown[];
  allowance_total: string;
  charge_total: string;
  vat_total: string;
  rounding_amount: string;
}

const num = (v: string | null | undefined) => (v === null || v === undefined ? null : toNumber(v));

export function toAllowanceChargeRecord(a: StoredAllowanceCharge): AllowanceChargeRecord {
  return {
    charge: a.charge,
    amount: toNumber(a.computed?.amount ?? a.amount ?? '0'),
    percent: num(a.percent),
    base_amount: num(a.computed?.base_amount ?? a.base_amount),
    reason: a.reason,
    reason_code: a.reason_code,
    tax_category: a.computed?.tax_category ?? a.tax_category ?? '',
    tax_rate: toNumber(a.tax_rate),
    tax_exemption_reason: a.tax_exemption_reason,
    tax_exemption_code: a.tax_exemption_code,
    reverse_charge_rate: num(a.reverse_charge_rate),
    tax_amount: toNumber(a.computed?.tax ?? '0'),
  };
}

export function toBreakdownRecord(b: StoredBreakdown): TaxBreakdownRecord {
  return {
    tax_category: b.tax_category,
    tax_rate: toNumber(b.tax_rate),
    taxable_amount: toNumber(b.taxable_amount),
    tax_amount: toNumber(b.tax_amount),
    exemption_reason: b.exemption_reason,
    exemption_code: b.exemption_code,
  };
}

/** The tax fields of a document's answer (contracts' documentTaxRecord). */
export function documentTaxFields(row: DocumentTaxRow) {
  return {
    currency: row.currency,
    exchange_rate: num(row.exchange_rate),
    rounding: row.rounding ?? DEFAULT_ROUNDING,
    allowances_charges: row.allowances_charges.map(toAllowanceChargeRecord),
    tax_breakdown: row.tax_breakdown.map(toBreakdownRecord),
    allowance_total: toNumber(row.allowance_total),
    charge_total: toNumber(row.charge_total),
    vat_total: toNumber(row.vat_total),
    rounding_amount: toNumber(row.rounding_amount),
  };
}

/**
 * The currency a new document takes when it names none, from this service's read models, with the
 * organization's tax policy: the partner's currency, else the organization's. Given the settings the
 * handler read already, it reads the partner's currency alone; else the settings with it, in one
 * statement, and answers that reading too (`settings`) for the handler to pass on.
 */
export async function documentDefaults(
  db: Knex,
  orgId: number,
  partnerId: number,
  known?: SettingsReading,
): Promise<ReturnType<typeof defaultsOf> & { settings: SettingsReading }> {
  const partnerCurrency = 'select currency from partner_directory where org_id = ? and id = ?';
  if (known) {
    const { rows } = await db.raw<{ rows: Array<{ currency: string | null }> }>(partnerCurrency, [orgId, partnerId]);
    return { ...defaultsOf(known.row, rows[0]?.currency), settings: known };
  }
  const { rows } = await db.raw<{ rows: Array<OrganizationSettings & { partner_currency: string | null }> }>(
    `select (${partnerCurrency}) as partner_currency, s.* from (select 1) one left join organization_settings s on s.org_id = ?`,
    [orgId, partnerId, orgId],
  );
  const { partner_currency, ...row } = rows[0] as OrganizationSettings & { partner_currency: string | null };
  const settings = settingsReading(row.org_id == null ? undefined : row);
  return { ...defaultsOf(settings.row, partner_currency), settings };
}

/** A new document's defaults from the organization's settings and its partner's currency: see documentDefaults. */
export function defaultsOf(
  settings: Pick<OrganizationSettings, 'default_currency' | 'rounding' | 'cash_rounding' | 'time_zone'> | undefined,
  partnerCurrency: string | null | undefined,
) {
  return {
    currency: partnerCurrency || settings?.default_currency || null,
    rounding: settings?.rounding ?? DEFAULT_ROUNDING,
    cash_rounding: settings?.cash_rounding ?? null,
    accounting_currency: settings?.default_currency ?? null,
    /** The organization's time zone, read with the rest (nowIn). */
    time_zone: settings?.time_zone ?? null,
  };
}

/** What documentDefaults answers. */
export type DocumentDefaults = ReturnType<typeof defaultsOf>;

/**
 * The tax context of a document computed now: the organization's rounding policy, and its cash
 * rounding for a document in its own currency (coins are a currency's own: 0.05 means nothing in JPY).
 */
export function taxContextFor(
  defaults: Pick<DocumentDefaults, 'rounding' | 'cash_rounding' | 'accounting_currency'>,
  currency: string | null,
  parties: TaxParties | null = null,
): TaxContext {
  const cash =
    defaults.cash_rounding !== null && currency !== null && currency === defaults.accounting_currency ? defaults.cash_rounding : null;
  return { rounding: defaults.rounding, cash_rounding: cash, parties };
}

/**
 * An exchange rate given where it means nothing (the document is in the accounting currency), or a
 * currency without a minor unit; null when fine.
 */
export function exchangeRateProblem(
  currency: string | null,
  exchangeRate: string | null | undefined,
  accounting: string | null,
): string | null {
  if (exchangeRate === null || exchangeRate === undefined) return null;
  if (currency !== null && accounting !== null && currency === accounting && toNumber(exchangeRate) !== 1)
    return `exchange_rate converts a document in another currency than the organization's (${accounting}); this one is in ${currency}`;
  return null;
}

/** Decimals of a document's amounts. */
export function minorUnitOf(currency: string | null): number {
  return documentMinorUnit(currency) ?? 2;
}

/**
 * `reverse_charge_rate` belongs to reverse-charge (AE) rows only: refused by name anywhere else, so a
 * rate never silently means nothing.
 */
export function checkReverseChargeRates(
  lines: ReadonlyArray<{ tax_category?: string | null; reverse_charge_rate?: string | null }>,
  allowances: ReadonlyArray<{ tax_category?: string | null; reverse_charge_rate?: string | null }>,
  naming: FieldNaming = (f) => f,
): void {
  const errors = [
    ...lines.map((l, i) => ({ row: l, field: naming(`line_items.${i}.reverse_charge_rate`) })),
    ...allowances.map((a, k) => ({ row: a, field: naming(`allowances_charges.${k}.reverse_charge_rate`) })),
  ]
    .filter(({ row }) => row.reverse_charge_rate !== null && row.reverse_charge_rate !== undefined && row.tax_category !== 'AE')
    .map(({ field }) => ({ field, message: `${field}: reverse_charge_rate goes with tax_category AE (reverse charge) only` }));
  if (errors.length) throw documentTaxRefusals.reverseChargeRateOutsideAe(errors);
}
