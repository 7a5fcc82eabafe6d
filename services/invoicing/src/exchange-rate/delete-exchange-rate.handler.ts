import { invoicing } from '@bo/contracts';
import { handler } from '@bo/runtime';
import { exchangeRateRefusals } from './exchange-rate-refusals';
import { deleteExchangeRate, exchangeRateDeleteAlone, readExchangeRate, toExchangeRateRecord } from './exchange-rate.repository';

const MESSAGE = 'Exchange rate deleted successfully';

/**
 * Deletes the rate of a currency and day, by that natural key; the reply is the rate deleted. The
 * rate is read with no lock and deleted as one statement only while it is the row read (`alone`);
 * none to delete, or one set again meanwhile, goes the usual way (`apply`), which answers what it finds.
 */
export const deleteExchangeRateHandler = handler(invoicing.deleteExchangeRate, {
  alone: async (req, ctx) => {
    const found = await readExchangeRate(ctx.db, ctx.orgId, req.currency, req.date);
    if (!found) return undefined;
    return {
      ...exchangeRateDeleteAlone(found.row.id, found.read),
      events: [],
      reply: { message: MESSAGE, exchange_rate: toExchangeRateRecord(found.row) },
    };
  },
  apply: async (req, ctx) => {
    const row = await deleteExchangeRate(ctx.db, ctx.orgId, req.currency, req.date);
    if (!row) throw exchangeRateRefusals.exchangeRateNotFound(req.currency, req.date);
    return { message: MESSAGE, exchange_rate: toExchangeRateRecord(row) };
  },
});
