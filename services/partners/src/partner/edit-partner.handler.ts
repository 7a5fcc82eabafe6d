import { partners } from '@bo/contracts';
import { handler, recordEvent } from '@bo/runtime';
import { checkCreditLimit } from './credit-limit';
import { structuredAddress, toPartnerRecord, type PartnerRow } from './partner.record';
import { findLivePartner } from './partner.repository';

export const editPartnerHandler = handler(partners.editPartner, async (req, ctx) => {
  return ctx.db.transaction(async (trx) => {
    const current = await findLivePartner(trx, ctx.orgId, req.partner_id, { lock: true });
    await checkCreditLimit(trx, ctx.orgId, req.credit_limit, req.currency !== undefined ? req.currency : current.currency);
    const changes: Partial<Record<keyof PartnerRow | 'updated_by', unknown>> = {};
    const copy = [
      'partnername',
      'partner_type',
      'phone',
      'address',
      'tax_number',
      'credit_limit',
      'payment_terms',
      'contact_person',
      'notes',
    ] as const;
    for (const field of copy) if (req[field] !== undefined) changes[field] = req[field];
    if (req.email !== undefined) changes.email = req.email || null;
    if (req.currency !== undefined) changes.currency = req.currency;
    Object.assign(changes, structuredAddress(req));
    if (req.display_name !== undefined) changes.display_name = req.display_name.trim() || (req.partnername ?? current.partnername);
    const [row] = await trx<PartnerRow>('partners')
      .where({ id: current.id })
      .update({ ...changes, version: trx.raw('version + 1'), updated_by: ctx.userId ?? null, updated_at: trx.fn.now() } as never)
      .returning('*');
    const partner = toPartnerRecord(row as PartnerRow);
    await recordEvent(trx, partners.partnerUpdated.type, ctx.orgId, partner);
    return { message: 'Partner updated successfully', partner };
  });
});
