import { dec, minorUnit, roundTo, type DecimalLike } from '@bo/kernel';
import { type Knex } from '@bo/runtime';
import { paymentRefusals } from './payment-refusals';
import type { SettingsReading } from '@bo/billing';
import { findExchangeRate } from '../exchange-rate/exchange-rate.repository';

/** How a payment is posted: the rate (null: as it is) and its amount's worth in the accounting currency. */
export interface PaymentConversion {
  exchange_rate: string | null;
  accounting_amount: string;
  /** The accounting currency's decimals: the worth of every piece of the payment is rounded to them. */
  places: number;
}

/**
 * The rate a payment is posted at (docs/invoicing.md "Payments in another currency"). In the
 * accounting currency, or while the organization has none on record, it is posted as it is (a rate
 * given other than 1 is refused, as on a document). Otherwise: the rate given, else the rate table's
 * for its currency on the payment date (the latest on or before it), else the rate the documents it
 * settles share, so a payment of one foreign invoice realizes no difference when nobody says the rate
 * moved; with none of these it is refused on `exchange_rate`. The accounting currency is the one of
 * the settings the posting read held.
 */
export async function paymentConversion(
  db: Knex,
  orgId: number,
  settings: SettingsReading,
  payment: PaymentToConvert,
): Promise<PaymentConversion> {
  const accounting = settings.taxPolicy.accounting_currency;
  return conversionOf(accounting, payment, await tableRate(db, orgId, accounting, payment));
}

/** What a payment's conversion decides on besides the accounting currency and the rate table. */
export interface PaymentToConvert {
  currency: string | null;
  amount: DecimalLike;
  date: string;
  given: DecimalLike | undefined;
  documents: ReadonlyArray<{ currency: string | null; exchange_rate: string | null }>;
}

/**
 * The payment's conversion (paymentConversion) once the accounting currency and, where it is asked
 * for (needsTableRate), the rate table's rate on the payment date are known: pure.
 */
export function conversionOf(accounting: string | null, payment: PaymentToConvert, table: string | undefined): PaymentConversion {
  const { places, rate: stated } = cashRateOf(accounting, { ...payment, what: 'the payment' }, table);
  if (stated === null) return { exchange_rate: null, accounting_amount: dec(payment.amount).toFixed(), places };
  const rate = stated ?? sharedRate(payment.currency as string, payment.documents);
  if (rate === undefined) {
    refuseRate(
      `the payment is in ${payment.currency} and the organization books in ${accounting}: give exchange_rate (${accounting} per 1 ${payment.currency}), or set a rate for ${payment.currency} on or before ${payment.date} (/invoicing/exchangerates)`,
    );
  }
  return { exchange_rate: rate, accounting_amount: atRate(payment.amount, rate, places), places };
}

/**
 * The rate cash in `currency` on `date` moves at, as far as the request and the rate table say
 * (payments and refunds share it): null when it is posted as it is (in the accounting currency, or
 * while the organization has none on record; a rate given other than 1 is then refused), else the
 * rate given, else the table's for the currency on `date` (the latest on or before it), else
 * undefined: the caller falls back on its own (a payment on its documents', a refund on its credit's).
 */
export async function cashRate(
  db: Knex,
  orgId: number,
  settings: SettingsReading,
  cash: { currency: string | null; date: string; given: DecimalLike | undefined; what: string },
): Promise<{ accounting: string | null; places: number; rate: string | null | undefined }> {
  const accounting = settings.taxPolicy.accounting_currency;
  return { accounting, ...cashRateOf(accounting, cash, await tableRate(db, orgId, accounting, cash)) };
}

/** Whether cash in `currency` takes the rate table's rate: foreign to the books, and given no rate of its own. */
export function needsTableRate(accounting: string | null, cash: { currency: string | null; given: DecimalLike | undefined }): boolean {
  return !postedAsItIs(accounting, cash.currency) && cash.given === undefined;
}

/** The rate table's rate of `rates` (any order) on `date`: the latest on or before it. */
export function rateOn(rates: ReadonlyArray<{ date: string; rate: string }>, date: string): string | undefined {
  let found: { date: string; rate: string } | undefined;
  for (const r of rates) if (r.date <= date && (!found || r.date > found.date)) found = r;
  return found?.rate;
}

/** cashRate once the accounting currency and the table's rate (where needsTableRate asks for it) are known: pure. */
export function cashRateOf(
  accounting: string | null,
  cash: { currency: string | null; given: DecimalLike | undefined; what: string },
  table: string | undefined,
): { places: number; rate: string | null | undefined } {
  const places = placesOf(accounting);
  if (postedAsItIs(accounting, cash.currency)) {
    if (cash.given !== undefined && accounting !== null && cash.currency === accounting && !dec(cash.given).equals(1)) {
      refuseRate(`${cash.what} is in ${accounting}, the accounting currency: its rate is 1`);
    }
    return { places, rate: null };
  }
  return { places, rate: cash.given !== undefined ? dec(cash.given).toFixed() : table };
}

function postedAsItIs(accounting: string | null, currency: string | null): boolean {
  return accounting === null || currency === null || currency === accounting;
}

async function tableRate(
  db: Knex,
  orgId: number,
  accounting: string | null,
  cash: { currency: string | null; date: string; given: DecimalLike | undefined },
): Promise<string | undefined> {
  if (!needsTableRate(accounting, cash)) return undefined;
  return (await findExchangeRate(db, orgId, cash.currency as string, cash.date))?.rate;
}

/** `amount` of a foreign currency at `rate`, in the accounting currency rounded to its `places`. */
export function atRate(amount: DecimalLike, rate: DecimalLike, places: number): string {
  return roundTo(dec(amount).times(dec(rate)), places).toFixed();
}

/** The decimals amounts of the accounting currency are rounded to (2 while the organization has none on record). */
export function accountingPlaces(accounting: string | null): number {
  return placesOf(accounting);
}

function placesOf(accounting: string | null): number {
  return (accounting === null ? undefined : minorUnit(accounting)) ?? 2;
}

/** The one rate every document in the payment's currency was posted at, if they have one in common. */
function sharedRate(currency: string, documents: ReadonlyArray<{ currency: string | null; exchange_rate: string | null }>) {
  const rates = new Set(
    documents.filter((d) => d.currency === currency && d.exchange_rate !== null).map((d) => dec(d.exchange_rate as string).toFixed()),
  );
  return rates.size === 1 ? [...rates][0] : undefined;
}

function refuseRate(message: string): never {
  throw paymentRefusals.paymentRateRefused(message);
}
