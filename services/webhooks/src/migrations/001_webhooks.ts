import type { Migration } from '@bo/runtime';

export const migration: Migration = {
  name: '001_webhooks',
  async up(trx, schema) {
    await trx.schema.withSchema(schema).createTable('endpoints', (t) => {
      t.increments('id');
      t.integer('org_id').notNullable();
      t.text('url').notNullable();
      t.text('description');
      // Event types and patterns (`*`, `invoicing.*`), as a JSON array.
      t.jsonb('events').notNullable();
      t.string('status', 16).notNullable().defaultTo('enabled');
      t.string('disabled_reason', 16);
      t.timestamp('disabled_at', { useTz: true });
      // Since when every attempt failed (none succeeded since); null while it delivers.
      t.timestamp('failing_since', { useTz: true });
      // Signing secrets sealed with WEBHOOKS_SECRET_KEYS (secret-box.ts), never answered after create/rotate.
      t.text('secret').notNullable();
      t.text('previous_secret');
      t.timestamp('previous_secret_expires_at', { useTz: true });
      t.integer('version').notNullable().defaultTo(1);
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
      t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
      t.timestamp('deleted_at', { useTz: true });
    });
    await trx.raw(
      `alter table ??.endpoints add constraint endpoints_status_check check (status in ('enabled','disabled'));
       create index endpoints_org on ??.endpoints (org_id, id) where deleted_at is null`,
      [schema, schema],
    );
    await trx.schema.withSchema(schema).createTable('deliveries', (t) => {
      t.increments('id');
      t.integer('org_id').notNullable();
      t.integer('endpoint_id').notNullable().references('id').inTable(`${schema}.endpoints`).onDelete('CASCADE');
      // The event's id: the webhook-id of every attempt; one delivery per endpoint and event.
      t.uuid('event_id').notNullable();
      t.text('event_type').notNullable();
      // The body to POST ({ id, type, created_at, org_id, data }).
      t.jsonb('payload').notNullable();
      t.string('status', 16).notNullable().defaultTo('pending');
      t.integer('attempts').notNullable().defaultTo(0);
      // Failed attempts in a row since the last (re)delivery: the position in the retry schedule.
      t.integer('failed_in_a_row').notNullable().defaultTo(0);
      t.timestamp('next_attempt_at', { useTz: true });
      // Taken by a dispatcher until then (a crash lets it go when it passes); lease_id fences its answer.
      t.timestamp('leased_until', { useTz: true });
      t.uuid('lease_id');
      t.timestamp('last_attempt_at', { useTz: true });
      t.integer('last_http_status');
      t.integer('last_duration_ms');
      t.text('last_error');
      t.timestamp('delivered_at', { useTz: true });
      // The trace the event arrived in: each attempt's span continues it.
      t.text('traceparent');
      t.text('tracestate');
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
      t.unique(['endpoint_id', 'event_id'], { indexName: 'deliveries_endpoint_event' });
    });
    await trx.raw(
      `alter table ??.deliveries add constraint deliveries_status_check check (status in ('pending','delivered','failed'));
       create index deliveries_due on ??.deliveries (next_attempt_at) where status = 'pending';
       create index deliveries_endpoint on ??.deliveries (endpoint_id, id desc)`,
      [schema, schema, schema],
    );
    await trx.schema.withSchema(schema).createTable('delivery_attempts', (t) => {
      t.increments('id');
      t.integer('delivery_id').notNullable().references('id').inTable(`${schema}.deliveries`).onDelete('CASCADE');
      t.integer('attempt').notNullable();
      t.timestamp('at', { useTz: true }).notNullable();
      t.integer('http_status');
      t.integer('duration_ms').notNullable();
      t.text('error');
      t.text('response_excerpt');
      t.index(['delivery_id']);
    });
  },
};
