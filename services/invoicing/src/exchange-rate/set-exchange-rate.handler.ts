import { invoicing } from '@bo/contracts';
import { handler, invalidState, validationFailed } from '@bo/runtime';
import { accountingCurrency, toExchangeRateRecord, type ExchangeRateRow } from './exchange-rate.repository';

/**
 * One rate per organization, currency and day: setting it again replaces it (one upsert, so two
 * concurrent sets of one key both succeed and the later commit's rate stays).
 */
export const setExchangeRateHandler = handler(invoicing.setExchangeRate, async (req, ctx) => {
  const accounting = await accountingCurrency(ctx.db, ctx.orgId);
  if (!accounting) {
    throw invalidState(
      'The organization has no accounting currency yet: set default_currency in its profile (/organization/setprofile) before its exchange rates',
    );
  }
  if (req.currency === accounting) {
    const message = `${req.currency} is the organization's accounting currency: its rate is 1`;
    throw validationFailed(message, [{ field: 'currency', message }]);
  }
  const [row] = (await ctx
    .db('exchange_rates')
    .insert({ org_id: ctx.orgId, currency: req.currency, rate_date: req.date, rate: req.rate, accounting_currency: accounting })
    .onConflict(['org_id', 'currency', 'rate_date'])
    .merge({ rate: req.rate, accounting_currency: accounting, updated_at: ctx.db.fn.now() })
    .returning('*')) as ExchangeRateRow[];
  return { message: 'Exchange rate set successfully', exchange_rate: toExchangeRateRecord(row as ExchangeRateRow) };
});
