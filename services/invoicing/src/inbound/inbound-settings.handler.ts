import { invoicing } from '@bo/contracts';
import { filledIn, handler } from '@bo/runtime';
import { decideInboundSettings, inboundSettingsReply } from './decide-inbound-settings';
import { createsPartners, inboundSettingsAlone, storeInboundSettings } from './inbound.repository';

/**
 * The organization's settings for receiving e-invoices: sets the given ones, answers them all.
 *
 * Decide (decideInboundSettings) → store, as one statement: the change needs nothing stored to be
 * decided, so the statement writes it (an upsert: of two concurrent sets, the later commit's stays)
 * and answers the settings as it leaves them (`alone`); with nothing given, it only reads them.
 * `apply`, the usual way in a transaction, is there for the runtime's fallback.
 */
export const inboundSettingsHandler = handler(invoicing.inboundSettings, {
  alone: (req, ctx) => ({
    ...inboundSettingsAlone(ctx.orgId, decideInboundSettings(req)),
    events: [],
    reply: inboundSettingsReply(filledIn<boolean>()),
  }),
  apply: async (req, ctx) => {
    const { createPartners } = decideInboundSettings(req);
    if (createPartners !== undefined) await storeInboundSettings(ctx.db, ctx.orgId, createPartners);
    return inboundSettingsReply(await createsPartners(ctx.db, ctx.orgId));
  },
});
