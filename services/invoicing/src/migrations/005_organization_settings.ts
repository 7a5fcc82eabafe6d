import type { Migration } from '@bo/runtime';
import { organizationSettingsMigration } from '@bo/billing';

// The organization's time zone, from partners.organization.updated (overdue, scheduler, dates).
export const migration: Migration = organizationSettingsMigration('005_organization_settings');
