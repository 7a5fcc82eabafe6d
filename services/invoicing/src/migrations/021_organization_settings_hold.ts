import type { Migration } from '@bo/runtime';
import { createOrganizationSettingsHold } from '@bo/billing';

export const migration: Migration = {
  // A posting holds its organization's settings under an advisory lock, not a row lock
  // (organizationSettings with `hold`).
  name: '021_organization_settings_hold',
  up: createOrganizationSettingsHold,
};
