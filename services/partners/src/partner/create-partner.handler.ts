import { partners } from '@bo/contracts';
import { handler, recordEvent } from '@bo/runtime';
import { organizationCurrency } from './credit-limit';
import { createPartnerNeedsOrganizationCurrency, decideCreatePartner, partnerCreated } from './decide-create-partner';
import { insertPartner } from './partner.repository';

/**
 * Load → decide → store. The load is the organization's currency, read only for a credit limit
 * finer than cents of a partner without a currency of its own; the store is the partner's insert,
 * then the runtime's one statement for the event's outbox row and the recorded reply.
 */
export const createPartnerHandler = handler(partners.createPartner, async (req, ctx) => {
  return ctx.db.transaction(async (trx) => {
    const state = { organizationCurrency: createPartnerNeedsOrganizationCurrency(req) ? await organizationCurrency(trx, ctx.orgId) : null };
    const created = partnerCreated(await insertPartner(trx, decideCreatePartner(req, ctx, state)));
    await recordEvent(trx, partners.partnerCreated, ctx.orgId, created.partner);
    return created;
  });
});
