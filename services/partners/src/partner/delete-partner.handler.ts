import { partners } from '@bo/contracts';
import { handler, recordEvent, validationFailed } from '@bo/runtime';
import { deleteBlockers } from './delete-blockers';
import { askOpenDocuments } from './open-documents';
import { toPartnerRecord, type PartnerRow } from './partner.record';
import { findLivePartner } from './partner.repository';

/**
 * Soft delete: the partner leaves lists and lookups; its ledger and documents keep pointing at it.
 * Refused while it owes or is owed money, or sales or invoicing still hold open documents or active
 * contracts for it. Those two are asked first, with no transaction open; the balance is checked
 * under the row lock, so a payment landing meanwhile is seen.
 */
export const deletePartnerHandler = handler(
  partners.deletePartner,
  async (req, ctx) => {
    await findLivePartner(ctx.db, ctx.orgId, req.partner_id);
    const open = await askOpenDocuments(ctx, req.partner_id);
    return ctx.db.transaction(async (trx) => {
      const current = await findLivePartner(trx, ctx.orgId, req.partner_id, { lock: true });
      const blocked = deleteBlockers(current.id, current.balance, open);
      if (blocked) throw validationFailed(blocked, [{ field: 'partner_id', message: blocked }]);
      const [row] = await trx<PartnerRow>('partners')
        .where({ id: current.id })
        .update({
          deleted_at: trx.fn.now(),
          version: trx.raw('version + 1'),
          updated_by: ctx.userId ?? null,
          updated_at: trx.fn.now(),
        } as never)
        .returning('*');
      await recordEvent(trx, partners.partnerDeleted.type, ctx.orgId, toPartnerRecord(row as PartnerRow));
      const reply = { message: 'Partner deleted successfully' };
      await ctx.finish(trx, reply);
      return reply;
    });
  },
  { transactions: 'own' },
);
