import { partners } from '@bo/contracts';
import { handler, recordEvent } from '@bo/runtime';
import { toPartnerRecord, type PartnerRow } from './partner.record';
import { findLivePartner } from './partner.repository';

/** Soft delete: the partner leaves lists and lookups; its ledger and documents keep pointing at it. */
export const deletePartnerHandler = handler(partners.deletePartner, async (req, ctx) => {
  return ctx.db.transaction(async (trx) => {
    const current = await findLivePartner(trx, ctx.orgId, req.partner_id, { lock: true });
    const [row] = await trx<PartnerRow>('partners')
      .where({ id: current.id })
      .update({ deleted_at: trx.fn.now(), updated_by: ctx.userId ?? null } as never)
      .returning('*');
    await recordEvent(trx, partners.partnerDeleted.type, ctx.orgId, toPartnerRecord(row as PartnerRow));
    return { message: 'Partner deleted successfully' };
  });
});
