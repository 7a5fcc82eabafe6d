import type { Migration } from '@bo/runtime';
import { migration as m001Webhooks } from './001_webhooks';
import { migration as m002WebhooksFairClaim } from './002_webhooks_fair_claim';
import { migration as m003WebhooksRouteClaims } from './003_webhooks_route_claims';

/**
 * The schema's migrations in the order they apply, one file each, named as schema_migrations records
 * them. A shipped migration is never edited and imports no domain code: a change of schema is a new
 * file at the end. Today's schema in one place is ../../schema.sql (a test compares it with a migrated
 * database).
 */
export const webhooksMigrations: Migration[] = [m001Webhooks, m002WebhooksFairClaim, m003WebhooksRouteClaims];
