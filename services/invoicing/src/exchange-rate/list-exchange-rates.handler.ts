import { invoicing } from '@bo/contracts';
import { handler, paginationOf } from '@bo/runtime';
import { reportRefusals } from '../report/report-refusals';
import { pageOfExchangeRates, toExchangeRateRecord } from './exchange-rate.repository';

/** The organization's rates, by currency then newest day first; filtered by currency and days (both inclusive). */
export const listExchangeRatesHandler = handler(invoicing.listExchangeRates, async (req, ctx) => {
  if (req.date_from && req.date_to && req.date_from > req.date_to) throw reportRefusals.dateFromAfterDateTo();
  const { rows, total } = await pageOfExchangeRates(ctx.db, ctx.orgId, req, req);
  const rates = rows.map(toExchangeRateRecord);
  return {
    message: rates.length ? 'Exchange rates retrieved successfully' : 'No exchange rates found',
    exchange_rates: rates,
    pagination: paginationOf(req, total),
  };
});
