import { partners } from '@bo/contracts';
import { filledIn, handler, recordEvent, statementEvent } from '@bo/runtime';
import { decideEditAlone, decideEditPartner } from './decide-edit-partner';
import { lockAndLoadPartner, partnerEditAlone, storePartnerEdit } from './partner.repository';

/**
 * Decide → store, as a rule: an edit the request alone decides (no credit limit, no currency, no
 * blank display name) is the partner's update, its event and the recorded reply as one statement
 * (`alone`), the record PostgreSQL writes answered in both. Otherwise, or when the partner is not
 * there to update, load (the partner under its lock, the organization's currency, its balances) →
 * decide → store in the runtime's transaction (`apply`): the update goes with the statement that
 * commits, beside the event's outbox row and the recorded reply.
 */
export const editPartnerHandler = handler(partners.editPartner, {
  alone: (req, ctx) => {
    const changes = decideEditAlone(req, ctx);
    if (!changes) return undefined;
    return {
      ...partnerEditAlone(ctx.orgId, req.partner_id, changes),
      events: [statementEvent(partners.partnerUpdated, ctx.orgId, filledIn())],
      reply: { message: 'Partner updated successfully', partner: filledIn() },
    };
  },
  apply: async (req, ctx) => {
    return ctx.db.transaction(async (trx) => {
      const state = await lockAndLoadPartner(trx, ctx.orgId, req.partner_id);
      const edit = decideEditPartner(state, req, ctx);
      await storePartnerEdit(trx, edit);
      await recordEvent(trx, partners.partnerUpdated, ctx.orgId, edit.partner);
      return { message: 'Partner updated successfully', partner: edit.partner };
    });
  },
});
