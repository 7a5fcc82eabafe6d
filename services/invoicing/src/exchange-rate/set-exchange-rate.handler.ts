import { invoicing } from '@bo/contracts';
import { handler } from '@bo/runtime';
import { exchangeRateRefusals } from './exchange-rate-refusals';
import { accountingCurrency, toExchangeRateRecord, upsertExchangeRate } from './exchange-rate.repository';

/**
 * One rate per organization, currency and day: setting it again replaces it (one upsert, so two
 * concurrent sets of one key both succeed and the later commit's rate stays). The rate is stored
 * against the accounting currency read held, so a change of the books under way is waited for: read
 * past, the rate would be kept against the old currency, where no posting looks for it.
 */
export const setExchangeRateHandler = handler(invoicing.setExchangeRate, async (req, ctx) => {
  const accounting = await accountingCurrency(ctx.db, ctx.orgId, { hold: true });
  if (!accounting) throw exchangeRateRefusals.noAccountingCurrency();
  if (req.currency === accounting) throw exchangeRateRefusals.rateOfAccountingCurrency(req.currency);
  const row = await upsertExchangeRate(ctx.db, {
    org_id: ctx.orgId,
    currency: req.currency,
    rate_date: req.date,
    rate: req.rate,
    accounting_currency: accounting,
  });
  return { message: 'Exchange rate set successfully', exchange_rate: toExchangeRateRecord(row) };
});
