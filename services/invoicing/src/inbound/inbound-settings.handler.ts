import { invoicing } from '@bo/contracts';
import { handler } from '@bo/runtime';
import { createsPartners, storeInboundSettings } from './inbound.repository';

/** The organization's settings for receiving e-invoices: sets the given ones, answers them all. */
export const inboundSettingsHandler = handler(invoicing.inboundSettings, async (req, ctx) => {
  if (req.inbound_create_partners !== undefined) await storeInboundSettings(ctx.db, ctx.orgId, req.inbound_create_partners);
  return { message: 'Inbound settings saved', settings: { inbound_create_partners: await createsPartners(ctx.db, ctx.orgId) } };
});
