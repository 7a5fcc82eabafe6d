import { invoicing } from '@bo/contracts';
import { filledIn, handler, unlessRefused } from '@bo/runtime';
import { decideExchangeRate } from './decide-exchange-rate';
import {
  accountingCurrency,
  exchangeRateRecordOf,
  exchangeRateSetAlone,
  toExchangeRateRecord,
  upsertExchangeRate,
} from './exchange-rate.repository';

const MESSAGE = 'Exchange rate set successfully';

/**
 * One rate per organization, currency and day: setting it again replaces it (one upsert, so two
 * concurrent sets of one key both succeed and the later commit's rate stays). The rate is stored
 * against the accounting currency under the organization's settings lock, so a change of the books
 * under way is waited for: read past, the rate would be kept against the old currency, where no
 * posting looks for it. Load → decide (decideExchangeRate) → store, optimistic as a rule: the
 * accounting currency read with no lock, and the upsert as one statement that takes the settings lock
 * and writes only while the accounting currency is still the one read (`alone`); a currency changed
 * meanwhile, or a refusal, goes the locked way (`apply`).
 */
export const setExchangeRateHandler = handler(invoicing.setExchangeRate, {
  alone: async (req, ctx) => {
    const accounting = await accountingCurrency(ctx.db, ctx.orgId);
    const rate = unlessRefused(() => decideExchangeRate(accounting, req, ctx.orgId));
    if (!rate) return undefined;
    // The row's id and times are the statement's: filled in from it.
    const made = { id: filledIn<number>(), created_at: filledIn<string>(), updated_at: filledIn<string>() };
    return { ...exchangeRateSetAlone(rate), events: [], reply: { message: MESSAGE, exchange_rate: exchangeRateRecordOf(rate, made) } };
  },
  apply: async (req, ctx) => {
    const rate = decideExchangeRate(await accountingCurrency(ctx.db, ctx.orgId, { hold: true }), req, ctx.orgId);
    return { message: MESSAGE, exchange_rate: toExchangeRateRecord(await upsertExchangeRate(ctx.db, rate)) };
  },
});
