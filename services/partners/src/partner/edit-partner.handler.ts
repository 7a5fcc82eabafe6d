import { partners } from '@bo/contracts';
import { handler, recordEvent } from '@bo/runtime';
import { decideEditPartner } from './decide-edit-partner';
import { lockAndLoadPartner, storePartnerEdit } from './partner.repository';

/**
 * Load (the partner under its lock, the organization's currency) → decide → store: the update goes
 * with the statement that commits, beside the event's outbox row and the recorded reply.
 */
export const editPartnerHandler = handler(partners.editPartner, async (req, ctx) => {
  return ctx.db.transaction(async (trx) => {
    const state = await lockAndLoadPartner(trx, ctx.orgId, req.partner_id);
    const edit = decideEditPartner(state, req, ctx);
    await storePartnerEdit(trx, edit);
    await recordEvent(trx, partners.partnerUpdated, ctx.orgId, edit.partner);
    return { message: 'Partner updated successfully', partner: edit.partner };
  });
});
