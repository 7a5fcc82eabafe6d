import { partners } from '@bo/contracts';
import { handler } from '@bo/runtime';
import { toPartnerRecord } from './partner.record';
import { findLivePartner } from './partner.repository';

export const getPartnerHandler = handler(partners.getPartner, async (req, ctx) => {
  const row = await findLivePartner(ctx.db, ctx.orgId, req.partner_id);
  return { message: 'Partner found', partner: toPartnerRecord(row) };
});
