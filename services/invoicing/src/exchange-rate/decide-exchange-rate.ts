import { exchangeRateRefusals } from './exchange-rate-refusals';

/** What setting a rate writes: units of `accounting_currency` per unit of `currency`, from `rate_date`. */
export interface RateToSet {
  org_id: number;
  currency: string;
  rate_date: string;
  rate: string;
  accounting_currency: string;
}

/**
 * A rate set, decided on the organization's accounting currency (null: it has none yet): refused
 * without one, and for the accounting currency itself, whose rate is 1.
 */
export function decideExchangeRate(
  accounting: string | null,
  req: { currency: string; date: string; rate: string },
  orgId: number,
): RateToSet {
  if (!accounting) throw exchangeRateRefusals.noAccountingCurrency();
  if (req.currency === accounting) throw exchangeRateRefusals.rateOfAccountingCurrency(req.currency);
  return { org_id: orgId, currency: req.currency, rate_date: req.date, rate: req.rate, accounting_currency: accounting };
}
