import { defineEvent } from '../events';
import { profileSummary } from './schemas';

// Consumed by sales and invoicing (the time zone of their dates) and later by document rendering:
// fields may be added, never removed or renamed.
export const organizationUpdated = defineEvent({
  type: 'partners.organization.updated',
  summary:
    "The organization's profile was set; data is the whole profile without the logo's bytes (logo_sha256 and logo_bytes say whether it changed)",
  data: profileSummary,
});

export const organizationEvents = [organizationUpdated];
