import { partners } from '@bo/contracts';
import { AppError, commitOnlyBefore, filledIn, handler, recordEvent, statementEvent, unlessRefused, type BaseConfig } from '@bo/runtime';
import { decidePartnerDelete } from './delete-blockers';
import { askOpenDocuments } from './open-documents';
import { toPartnerRecord } from './partner.record';
import { balancesOf, findLivePartner, markPartnerDeleted, partnerDeleteAlone, readDeleteTarget } from './partner.repository';

/**
 * Soft delete: the partner leaves lists and lookups; its ledger and documents keep pointing at it.
 * Refused while it owes or is owed money, or sales or invoicing still hold open documents or active
 * contracts for it. Those two are asked with no transaction open; the balance holds where the
 * delete is stored (the partner's version, or its row lock), so a payment landing meanwhile is seen.
 *
 * Asked twice: first plainly, so the usual refusal leaves nothing behind; then, with nothing open,
 * with a fence (docs/partners.md "Delete rules"): each service that still has nothing open refuses
 * new documents for the partner until the fence passes, and the delete commits well before that or
 * not at all. A document created meanwhile is either counted (the delete is refused) or refused.
 *
 * The partner and its balances are read once, with no lock, before the services are asked; the delete
 * is decided on them (decidePartnerDelete) and stored, as a rule, as one statement (`alone`): the
 * partner marked deleted only while it is the row read and the fence still stands. When it moved
 * meanwhile, or the request is to be refused, the usual way decides under the partner's lock (`apply`).
 */
export const deletePartnerHandler = handler(partners.deletePartner, {
  gather: async (req, ctx) => {
    const read = await readDeleteTarget(ctx.db, ctx.orgId, req.partner_id);
    decidePartnerDelete(req.partner_id, read, await askOpenDocuments(ctx, req.partner_id));
    const { fenceMs, commitWithinMs } = deleteFence(ctx.config);
    const asked = Date.now();
    const open = await askOpenDocuments(ctx, req.partner_id, fenceMs);
    return { open, commitBy: asked + commitWithinMs, read: read! };
  },
  // The partner as the gather read it, before the services were asked: any move of its balances
  // since changes its version, and the store then writes nothing.
  alone: (req, ctx, { open, commitBy, read }) => {
    if (unlessRefused(() => decidePartnerDelete(req.partner_id, read, open)) !== 'delete') return undefined;
    return {
      ...partnerDeleteAlone(ctx.orgId, req.partner_id, { version: read.version, userId: ctx.userId ?? null, commitBy }),
      events: [statementEvent(partners.partnerDeleted, ctx.orgId, filledIn())],
      reply: { message: 'Partner deleted successfully' },
    };
  },
  apply: async (req, ctx, { open, commitBy }) => {
    const current = await findLivePartner(ctx.db, ctx.orgId, req.partner_id, { lock: true });
    decidePartnerDelete(current.id, { balances: await balancesOf(ctx.db, current) }, open);
    const row = await markPartnerDeleted(ctx.db, current.id, ctx.userId ?? null);
    await recordEvent(ctx.db, partners.partnerDeleted, ctx.orgId, toPartnerRecord(row));
    // The last step: the runtime's COMMIT follows at once, with the recorded reply.
    await commitOnlyBefore(
      ctx.db,
      commitBy,
      (late) =>
        new AppError(
          503,
          'service_unavailable',
          `Partner ${current.id} was not deleted: the delete took ${late} ms too long to commit within the fence on new documents; retry`,
        ),
    );
    return { message: 'Partner deleted successfully' };
  },
});

/**
 * How long sales and invoicing refuse new documents for a partner being deleted, and how soon after
 * asking them the delete must commit: half of it, so the fence still stands at the commit whatever
 * the two clocks' small drift.
 */
export function deleteFence(config: Pick<BaseConfig, 'RPC_TIMEOUT_MS'>): { fenceMs: number; commitWithinMs: number } {
  return { fenceMs: 4 * config.RPC_TIMEOUT_MS, commitWithinMs: 2 * config.RPC_TIMEOUT_MS };
}
