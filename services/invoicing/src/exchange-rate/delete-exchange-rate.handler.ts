import { invoicing } from '@bo/contracts';
import { handler } from '@bo/runtime';
import { exchangeRateRefusals } from './exchange-rate-refusals';
import { deleteExchangeRate, toExchangeRateRecord } from './exchange-rate.repository';

/** Deletes the rate of a currency and day, by that natural key; the reply is the rate deleted. */
export const deleteExchangeRateHandler = handler(invoicing.deleteExchangeRate, async (req, ctx) => {
  const row = await deleteExchangeRate(ctx.db, ctx.orgId, req.currency, req.date);
  if (!row) throw exchangeRateRefusals.exchangeRateNotFound(req.currency, req.date);
  return { message: 'Exchange rate deleted successfully', exchange_rate: toExchangeRateRecord(row) };
});
