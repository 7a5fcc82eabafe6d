import { invoicing } from '@bo/contracts';
import { filledIn, handler } from '@bo/runtime';
import { autoreconciles, bankSettingsAlone, storeBankSettings } from './bank.repository';
import { decideBankSettings } from './decide-bank-settings';

/**
 * The organization's settings for bank statements: sets the given ones, answers them all.
 *
 * Decide (decideBankSettings) → store, as one statement as a rule (`alone`): the setting given is
 * upserted, or, with none given, the statement reads the settings as they stand and fills them into
 * the reply; it decides on nothing read before, so nothing can have moved under it. Should it fail
 * anyway (NotAsDecided), the usual way (`apply`) does the same in the runtime's transaction.
 */
export const bankSettingsHandler = handler(invoicing.bankSettings, {
  alone: (req, ctx) => {
    const plan = decideBankSettings(req, { autoreconcile: filledIn<boolean>() });
    return { ...bankSettingsAlone(ctx.orgId, plan.autoreconcile), events: [], reply: plan.reply };
  },
  apply: async (req, ctx) => {
    const plan = decideBankSettings(req, { autoreconcile: req.bank_autoreconcile ?? (await autoreconciles(ctx.db, ctx.orgId)) });
    if (plan.autoreconcile !== undefined) await storeBankSettings(ctx.db, ctx.orgId, plan.autoreconcile);
    return plan.reply;
  },
});
