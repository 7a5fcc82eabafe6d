import { z } from 'zod';
import { baseRequest, dateField, exchangeRate, pageRequest, paginationSchema } from '../fields';
import { defineOperation } from '../operation';
import { currencyField } from '../organization/schemas';

/**
 * The organization's exchange-rate table (docs/invoicing.md, "Exchange rates"): for a currency and a
 * day, how many units of the accounting currency (the organization's `default_currency`) one unit of
 * the currency is worth. A document in another currency is posted at the latest rate on or before
 * its date when it carries none of its own.
 */

/** The natural key of a rate: one per organization, currency and day. */
const rateKey = {
  /** ISO 4217, not the accounting currency itself. */
  currency: currencyField,
  /** The organization's local date the rate applies from. */
  date: dateField,
};

export const setExchangeRateRequest = z.object({
  ...baseRequest,
  action: z.literal('set'),
  ...rateKey,
  /** Units of the accounting currency per 1 unit of `currency`. */
  rate: exchangeRate(),
});

export const listExchangeRatesRequest = z.object({
  ...baseRequest,
  action: z.literal('list'),
  currency: currencyField.optional(),
  date_from: dateField.optional(),
  date_to: dateField.optional(),
  ...pageRequest,
});

export const deleteExchangeRateRequest = z.object({ ...baseRequest, action: z.literal('delete'), ...rateKey });

export const exchangeRateRecord = z.object({
  id: z.number().int(),
  currency: z.string(),
  date: z.string(),
  /** Units of `accounting_currency` per 1 unit of `currency`. */
  rate: z.number(),
  /** The organization's accounting currency when the rate was set. */
  accounting_currency: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type ExchangeRateRecord = z.infer<typeof exchangeRateRecord>;

export const exchangeRateReply = z.object({ message: z.string(), exchange_rate: exchangeRateRecord });
export const listExchangeRatesReply = z.object({
  message: z.string(),
  exchange_rates: z.array(exchangeRateRecord),
  pagination: paginationSchema,
});

export const setExchangeRate = defineOperation({
  name: 'invoicing.exchange_rate.set',
  service: 'invoicing',
  summary: 'Set the rate of a currency for a day (replaces the rate of that currency and day)',
  paths: ['/invoicing/exchangerates'],
  select: { action: 'set' },
  write: true,
  request: setExchangeRateRequest,
  reply: exchangeRateReply,
  rules: [{ field: 'currency', rule: "not the organization's accounting currency (its profile's default_currency), which must be set" }],
});

export const listExchangeRates = defineOperation({
  name: 'invoicing.exchange_rate.list',
  service: 'invoicing',
  summary: 'List the exchange rates, by currency and date range',
  paths: ['/invoicing/exchangerates'],
  select: { action: 'list' },
  write: false,
  request: listExchangeRatesRequest,
  reply: listExchangeRatesReply,
  rules: [{ field: 'date_from', rule: 'not after date_to' }],
});

export const deleteExchangeRate = defineOperation({
  name: 'invoicing.exchange_rate.delete',
  service: 'invoicing',
  summary: 'Delete the rate of a currency for a day',
  paths: ['/invoicing/exchangerates'],
  select: { action: 'delete' },
  write: true,
  request: deleteExchangeRateRequest,
  reply: exchangeRateReply,
});

export const exchangeRateOperations = [setExchangeRate, listExchangeRates, deleteExchangeRate];
