import { dec, documentMinorUnit, roundTo, type Dec } from '@bo/kernel';
import { addDays, daysBetween } from '../domain/recurrence';
import type { FeeInvoicePlan, FeeTax } from './fee-invoice';

/**
 * Reminders (dunning) as a pure decision: the organization's levels, its interest setting and its
 * overdue customer invoices in, the letters to send out. Nothing here reads or writes; the run
 * stores each letter under its natural key (organization, invoice, level), so a letter the
 * decision names twice, in a repeated or concurrent run, is stored once.
 */

export interface DunningLevel {
  /** 1, 2, 3 …: letters go out in this order, one level per run. */
  level: number;
  /** The letter is due this many days after the invoice's due date (or later). */
  days_after_due: number;
  /** A flat fee in the invoice's currency (exact decimal text), 0 for none. */
  fee: string;
  /** Whether the letter charges statutory interest (Directive 2011/7/EU). */
  interest: boolean;
  /** The letter's text. */
  text: string;
}

/**
 * Statutory interest for late payment (Directive 2011/7/EU, Art. 2(6) and 12(2)(b)): the reference
 * rate (the ECB's main refinancing rate on the first calendar day of the half-year, which the
 * organization sets) plus at least eight percentage points; `points` is the organization's margin,
 * 8 unless it states more (Germany's 9 points between businesses).
 */
export interface InterestSetting {
  /** Per cent per year, decimal text (`4.5`). */
  reference_rate: string;
  /** Percentage points above it, at least 8. */
  points: string;
}

export interface OverdueInvoice {
  invoice_id: number;
  partner_id: number;
  invoicenumber: string;
  /** ISO 4217; its minor unit rounds the interest. */
  currency: string;
  /** YYYY-MM-DD. */
  due_date: string;
  /** What is still to pay, decimal text. */
  due_amount: string;
  /** The invoice's `dunning_disputed` flag: no letters while the customer contests it. */
  disputed: boolean;
  /** The partner's `dunning_blocked`. */
  partner_blocked: boolean;
  /** The highest level already sent for the invoice, 0 for none. */
  last_level: number;
  /** Its receivable account (`tradeaccount`), which a posted fee debits too; null: the default. */
  tradeaccount: string | null;
  /** The rate it was posted at when it is in another currency than the books, which a posted fee keeps; else null. */
  exchange_rate: string | null;
}

/** Whether a letter's fee is posted as an invoice of its own (`post_fees`), with which VAT, to which income account (`fee_account`). */
export interface FeePosting {
  post: boolean;
  tax: FeeTax;
  account: string;
}

export interface DunningLetterPlan {
  invoice_id: number;
  partner_id: number;
  invoicenumber: string;
  level: number;
  currency: string;
  due_date: string;
  due_amount: string;
  /** Days from the due date to the letter's date (the first day of delay is the day after the due date). */
  days_overdue: number;
  fee: string;
  /** Percent per year applied; null when the level charges no interest. */
  interest_rate: string | null;
  interest: string;
  /** due_amount + fee + interest. */
  total: string;
  text: string;
  /** The fee as an invoice of its own: with `post_fees` on and a fee above 0, else null. */
  fee_invoice: FeeInvoicePlan | null;
}

export type SkipReason = 'disputed' | 'partner_blocked' | 'last_level_sent' | 'not_yet_due';

export interface DunningDecision {
  letters: DunningLetterPlan[];
  skipped: Array<{ invoice_id: number; reason: SkipReason }>;
}

/** Day count of the statutory interest: actual days over a 365-day year (leap years too). */
export const INTEREST_DAY_BASIS = 365;

/**
 * Simple interest on `amount` at `ratePercent` per year for `days` days, actual/365, rounded half
 * up to the currency's minor unit once, at the end: amount × rate / 100 × days / 365.
 */
export function statutoryInterest(amount: string, ratePercent: Dec, days: number, currency: string): Dec {
  if (days <= 0) return dec(0);
  const places = documentMinorUnit(currency) ?? 2;
  return roundTo(dec(amount).times(ratePercent).div(100).times(days).div(INTEREST_DAY_BASIS), places);
}

/**
 * For each invoice overdue on `asOf` with something left to pay: the next level after the last one
 * sent, once `asOf` reaches its day (due date + days_after_due). Only the next level, never a jump:
 * a run after a long pause sends level 1 first. Disputed invoices and blocked partners get none.
 * Letters are ordered by partner, then invoice. With `fees.post`, a letter with a fee above 0 carries
 * the fee invoice to make with it.
 */
export function decideDunning(input: {
  asOf: string;
  levels: readonly DunningLevel[];
  interest: InterestSetting | null;
  invoices: readonly OverdueInvoice[];
  fees?: FeePosting;
}): DunningDecision {
  const byLevel = new Map(input.levels.map((l) => [l.level, l]));
  const rate = input.interest ? dec(input.interest.reference_rate).plus(dec(input.interest.points)) : null;
  const letters: DunningLetterPlan[] = [];
  const skipped: DunningDecision['skipped'] = [];
  const ordered = [...input.invoices].sort((a, b) => a.partner_id - b.partner_id || a.invoice_id - b.invoice_id);
  for (const invoice of ordered) {
    if (dec(invoice.due_amount).lte(0) || invoice.due_date >= input.asOf) continue;
    if (invoice.partner_blocked) {
      skipped.push({ invoice_id: invoice.invoice_id, reason: 'partner_blocked' });
      continue;
    }
    if (invoice.disputed) {
      skipped.push({ invoice_id: invoice.invoice_id, reason: 'disputed' });
      continue;
    }
    const next = byLevel.get(invoice.last_level + 1);
    if (!next) {
      skipped.push({ invoice_id: invoice.invoice_id, reason: 'last_level_sent' });
      continue;
    }
    if (addDays(invoice.due_date, next.days_after_due) > input.asOf) {
      skipped.push({ invoice_id: invoice.invoice_id, reason: 'not_yet_due' });
      continue;
    }
    const days = daysBetween(invoice.due_date, input.asOf);
    const places = documentMinorUnit(invoice.currency) ?? 2;
    const charged = next.interest && rate !== null;
    const interest = charged ? statutoryInterest(invoice.due_amount, rate, days, invoice.currency) : dec(0);
    const fee = roundTo(dec(next.fee), places);
    letters.push({
      invoice_id: invoice.invoice_id,
      partner_id: invoice.partner_id,
      invoicenumber: invoice.invoicenumber,
      level: next.level,
      currency: invoice.currency,
      due_date: invoice.due_date,
      due_amount: dec(invoice.due_amount).toFixed(places),
      days_overdue: days,
      fee: fee.toFixed(places),
      interest_rate: charged ? rate.toFixed() : null,
      interest: interest.toFixed(places),
      total: dec(invoice.due_amount).plus(fee).plus(interest).toFixed(places),
      text: next.text,
      fee_invoice:
        input.fees?.post && fee.gt(0)
          ? {
              partner_id: invoice.partner_id,
              currency: invoice.currency,
              as_of: input.asOf,
              tradeaccount: invoice.tradeaccount,
              exchange_rate: invoice.exchange_rate,
              invoicenumber: invoice.invoicenumber,
              level: next.level,
              fee: fee.toFixed(places),
              tax: input.fees.tax,
              account: input.fees.account,
            }
          : null,
    });
  }
  return { letters, skipped };
}

/** Levels as the organization sets them: numbered 1…n without gaps, their days strictly increasing. Returns the first problem, or null. */
export function levelsProblem(
  levels: readonly Pick<DunningLevel, 'level' | 'days_after_due'>[],
): { field: string; message: string } | null {
  const sorted = [...levels].sort((a, b) => a.level - b.level);
  for (const [i, l] of sorted.entries()) {
    if (l.level !== i + 1) return { field: 'levels', message: `levels must be numbered 1 to ${sorted.length} without gaps or repeats` };
    const before = sorted[i - 1];
    if (before && l.days_after_due <= before.days_after_due)
      return { field: 'levels', message: `level ${l.level} must come more days after the due date than level ${before.level}` };
  }
  return null;
}
