import { partners } from '@bo/contracts';
import { handler } from '@bo/runtime';
import { toProfileRecord } from '../organization/profile.record';
import { findProfile } from '../organization/profile.repository';
import { creditOf, toPartnerRecord } from './partner.record';
import { findLivePartnerIfAny, weighedBalanceOf } from './partner.repository';

/**
 * One call for what issuing or rendering a document asks of this service: both parties, and the
 * credit when the caller checks it. The two reads run side by side; the credit comes from the same
 * partner row as the party data.
 */
export const documentPartiesHandler = handler(partners.documentParties, async (req, ctx) => {
  const [profile, partner] = await Promise.all([findProfile(ctx.db, ctx.orgId), findLivePartnerIfAny(ctx.db, ctx.orgId, req.partner_id)]);
  return {
    message: partner ? 'Document parties found' : 'The organization profile; the partner is not found',
    organization: toProfileRecord(ctx.orgId, profile),
    partner: partner ? toPartnerRecord(partner) : null,
    credit: partner && req.include_credit ? creditOf(partner, await weighedBalanceOf(ctx.db, partner)) : null,
  };
});
