import type { Migration } from '@bo/runtime';
import { organizationSettingsMigration } from '@bo/billing';

// The organization's time zone, from partners.organization.updated (quotation expiry, dates).
export const migration: Migration = organizationSettingsMigration('006_organization_settings');
