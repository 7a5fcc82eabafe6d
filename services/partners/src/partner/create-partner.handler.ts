import { partners } from '@bo/contracts';
import { FILLED_IN, handler, recordEvent, statementEvent } from '@bo/runtime';
import { organizationCurrency } from './credit-limit';
import { asStoredPartner, createPartnerNeedsOrganizationCurrency, decideCreatePartner, partnerCreated } from './decide-create-partner';
import { insertPartner, insertPartnerPart } from './partner.repository';

/**
 * Decide → store. A partner decides on nothing stored, unless its credit limit is finer than cents
 * and it has no currency of its own (the organization's currency judges it then): so, as a rule,
 * the partner's insert, its event and the recorded reply are one statement with no transaction
 * (`alone`), the partner's id drawn in it. Otherwise load (the organization's currency) → decide →
 * store in the runtime's transaction (`apply`), which ends with the same statement.
 */
export const createPartnerHandler = handler(partners.createPartner, {
  alone: (req, ctx) => {
    if (createPartnerNeedsOrganizationCurrency(req)) return undefined;
    const row = decideCreatePartner(req, ctx, { organizationCurrency: null });
    const now = new Date();
    const created = partnerCreated(asStoredPartner(row, FILLED_IN, now));
    return {
      draws: { table: 'partners', column: 'id', key: 'id' },
      parts: [insertPartnerPart(row, now)],
      events: [statementEvent(partners.partnerCreated, ctx.orgId, created.partner)],
      reply: created,
    };
  },
  apply: async (req, ctx) => {
    return ctx.db.transaction(async (trx) => {
      const state = { organizationCurrency: await organizationCurrency(trx, ctx.orgId) };
      const created = partnerCreated(await insertPartner(trx, decideCreatePartner(req, ctx, state)));
      await recordEvent(trx, partners.partnerCreated, ctx.orgId, created.partner);
      return created;
    });
  },
});
