import { organization } from '@bo/contracts';
import { handler } from '@bo/runtime';
import { toProfileRecord, type ProfileRow } from './profile.record';

export const getProfileHandler = handler(organization.getProfile, async (_req, ctx) => {
  const row = await ctx.db<ProfileRow>('organization_profiles').where({ org_id: ctx.orgId }).first();
  return {
    message: row ? 'Organization profile retrieved successfully' : 'The organization has no profile yet',
    organization: toProfileRecord(ctx.orgId, row),
  };
});
