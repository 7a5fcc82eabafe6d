import type { invoicing } from '@bo/contracts';

type RecurringFrequency = invoicing.RecurringFrequency;

/** How many months (or days) one period of each frequency spans. */
const PERIOD: Record<RecurringFrequency, { months: number } | { days: number }> = {
  daily: { days: 1 },
  weekly: { days: 7 },
  monthly: { months: 1 },
  quarterly: { months: 3 },
  yearly: { months: 12 },
};

function parseDate(date: string): { y: number; m: number; d: number } {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return { y, m, d };
}

function fmt(y: number, m: number, d: number): string {
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

function daysInMonth(y: number, m: number): number {
  return new Date(Date.UTC(y, m, 0)).getUTCDate();
}

/**
 * The k-th run date of a contract (k = 0 is `start` itself). Always counted from the start date,
 * never from the previous run, so a clamped month end (Jan 31 → Feb 28) does not drift: the
 * run after Feb 28 is Mar 31 again.
 */
export function runDate(start: string, frequency: RecurringFrequency, k: number): string {
  const { y, m, d } = parseDate(start);
  const period = PERIOD[frequency];
  if ('days' in period) {
    const t = new Date(Date.UTC(y, m - 1, d + period.days * k));
    return t.toISOString().slice(0, 10);
  }
  const monthIndex = m - 1 + period.months * k;
  const year = y + Math.floor(monthIndex / 12);
  const month = (((monthIndex % 12) + 12) % 12) + 1;
  return fmt(year, month, Math.min(d, daysInMonth(year, month)));
}

/** The smallest index >= `from` whose run date is not before `today` (resume skips the past). */
export function firstRunIndexNotBefore(start: string, frequency: RecurringFrequency, from: number, today: string): number {
  let k = from;
  // Dates are ISO strings, so string comparison is date order; a long pause is at most a few thousand steps.
  while (runDate(start, frequency, k) < today) k += 1;
  return k;
}

/** Whole days from `a` to `b` (both YYYY-MM-DD). */
export function daysBetween(a: string, b: string): number {
  const pa = parseDate(a);
  const pb = parseDate(b);
  return Math.round((Date.UTC(pb.y, pb.m - 1, pb.d) - Date.UTC(pa.y, pa.m - 1, pa.d)) / 86_400_000);
}

export function addDays(date: string, days: number): string {
  const { y, m, d } = parseDate(date);
  return new Date(Date.UTC(y, m - 1, d + days)).toISOString().slice(0, 10);
}

/**
 * Manual generation may bill the next period ahead of its run date, but only one period ahead: the
 * child at `nextIndex` may be made once the period before it (run `nextIndex - 1`, the parent's own
 * for the first child) has begun. Refused, it answers the date from which it may run.
 */
export function generateTooEarly(start: string, frequency: RecurringFrequency, nextIndex: number, today: string): string | null {
  const currentPeriodStart = runDate(start, frequency, nextIndex - 1);
  return currentPeriodStart > today ? currentPeriodStart : null;
}
