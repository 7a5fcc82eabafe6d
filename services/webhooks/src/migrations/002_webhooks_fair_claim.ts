import type { Migration } from '@bo/runtime';

export const migration: Migration = {
  name: '002_webhooks_fair_claim',
  async up(trx, schema) {
    // The dispatcher asks each open endpoint for its next due rows (deliveries_endpoint_due) and
    // counts the attempts in flight (deliveries_leased: the few rows under a lease), instead of
    // reading every due row of every endpoint (deliveries_due) at each pass.
    await trx.raw(
      `create index deliveries_endpoint_due on ??.deliveries (endpoint_id, next_attempt_at, id) where status = 'pending';
       create index deliveries_leased on ??.deliveries (endpoint_id) where leased_until is not null;
       drop index ??.deliveries_due`,
      [schema, schema, schema],
    );
  },
};
