import { organization } from '@bo/contracts';
import { handler } from '@bo/runtime';
import { toProfileRecord } from './profile.record';
import { findProfile } from './profile.repository';

export const getProfileHandler = handler(organization.getProfile, async (_req, ctx) => {
  const row = await findProfile(ctx.db, ctx.orgId);
  return {
    message: row ? 'Organization profile retrieved successfully' : 'The organization has no profile yet',
    organization: toProfileRecord(ctx.orgId, row),
  };
});
