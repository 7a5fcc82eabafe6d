import { invoicing } from '@bo/contracts';
import { handler } from '@bo/runtime';
import { autoreconciles, storeBankSettings } from './bank.repository';

/** The organization's settings for bank statements: sets the given ones, answers them all. */
export const bankSettingsHandler = handler(invoicing.bankSettings, async (req, ctx) => {
  if (req.bank_autoreconcile !== undefined) await storeBankSettings(ctx.db, ctx.orgId, req.bank_autoreconcile);
  return { message: 'Bank settings saved', settings: { bank_autoreconcile: await autoreconciles(ctx.db, ctx.orgId) } };
});
