import { defineRefusals } from '@bo/runtime';

/** Every refusal of the exchange-rate module, by name (a list's range of days is refused as the report module's). */
export const exchangeRateRefusals = defineRefusals('exchangeRate', {
  /** No rate of the organization for that currency on that day. */
  exchangeRateNotFound: (currency: string, date: string) => ({
    code: 'not_found',
    message: `Exchange rate of ${currency} on ${date} not found`,
  }),
  /** A rate set before the organization has an accounting currency to hold it against. */
  noAccountingCurrency: () => ({
    code: 'invalid_state',
    message:
      'The organization has no accounting currency yet: set default_currency in its profile (/organization/setprofile) before its exchange rates',
  }),
  /** A rate of the accounting currency itself, which is always 1. */
  rateOfAccountingCurrency: (currency: string) => ({
    code: 'validation_failed',
    field: 'currency',
    message: `${currency} is the organization's accounting currency: its rate is 1`,
  }),
});
