import { invoicing } from '@bo/contracts';
import { handler, paginationOf, selectPage, validationFailed, type Knex } from '@bo/runtime';
import { toExchangeRateRecord, type ExchangeRateRow } from './exchange-rate.repository';

/** The organization's rates, by currency then newest day first; filtered by currency and days (both inclusive). */
export const listExchangeRatesHandler = handler(invoicing.listExchangeRates, async (req, ctx) => {
  if (req.date_from && req.date_to && req.date_from > req.date_to) {
    throw validationFailed('date_from must not be after date_to', [{ field: 'date_from', message: 'date_from must not be after date_to' }]);
  }
  const filtered = ctx
    .db('exchange_rates')
    .where({ org_id: ctx.orgId })
    .modify((q: Knex.QueryBuilder) => {
      if (req.currency) q.where({ currency: req.currency });
      if (req.date_from) q.where('rate_date', '>=', req.date_from);
      if (req.date_to) q.where('rate_date', '<=', req.date_to);
    });
  const { rows, total } = await selectPage<ExchangeRateRow>(filtered.select('*'), req, (page) =>
    page.orderBy([{ column: 'currency' }, { column: 'rate_date', order: 'desc' }, { column: 'id' }]),
  );
  const rates = rows.map(toExchangeRateRecord);
  return {
    message: rates.length ? 'Exchange rates retrieved successfully' : 'No exchange rates found',
    exchange_rates: rates,
    pagination: paginationOf(req, total),
  };
});
