import { invoicing } from '@bo/contracts';
import { handler, paginationOf, validationFailed } from '@bo/runtime';
import { pageOfExchangeRates, toExchangeRateRecord } from './exchange-rate.repository';

/** The organization's rates, by currency then newest day first; filtered by currency and days (both inclusive). */
export const listExchangeRatesHandler = handler(invoicing.listExchangeRates, async (req, ctx) => {
  if (req.date_from && req.date_to && req.date_from > req.date_to) {
    throw validationFailed('date_from must not be after date_to', [{ field: 'date_from', message: 'date_from must not be after date_to' }]);
  }
  const { rows, total } = await pageOfExchangeRates(ctx.db, ctx.orgId, req, req);
  const rates = rows.map(toExchangeRateRecord);
  return {
    message: rates.length ? 'Exchange rates retrieved successfully' : 'No exchange rates found',
    exchange_rates: rates,
    pagination: paginationOf(req, total),
  };
});
