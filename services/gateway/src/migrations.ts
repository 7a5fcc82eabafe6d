import type { Migration } from '@bo/runtime';

export const gatewayMigrations: Migration[] = [
  {
    name: '001_api_keys_and_idempotency',
    async up(trx, schema) {
      await trx.schema.withSchema(schema).createTable('api_keys', (t) => {
        t.increments('id');
        t.integer('org_id').notNullable();
        // sha256 of the key: keys are 256 random bits, so a fast hash loses nothing to brute force.
        t.string('key_hash', 64).notNullable().unique();
        t.string('key_prefix', 16).notNullable();
        t.string('label', 200);
        t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
        t.timestamp('revoked_at', { useTz: true });
      });
      await trx.schema.withSchema(schema).createTable('idempotency_keys', (t) => {
        t.integer('org_id').notNullable();
        t.string('key', 255).notNullable();
        t.string('operation', 100).notNullable();
        t.string('request_hash', 64).notNullable();
        t.integer('status_code');
        t.jsonb('response');
        t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
        t.timestamp('completed_at', { useTz: true });
        t.primary(['org_id', 'key']);
      });
    },
  },
  {
    name: '002_idempotency_leases',
    async up(trx, schema) {
      // A claim is a lease: a gateway that dies mid-request no longer blocks its key for 24 h.
      await trx.schema.withSchema(schema).alterTable('idempotency_keys', (t) => {
        t.timestamp('lease_until', { useTz: true });
      });
      await trx.raw('update ??.idempotency_keys set lease_until = now() where completed_at is null', [schema]);
    },
  },
  {
    name: '003_idempotency_lease_token_and_age_index',
    async up(trx, schema) {
      // A claim names its holder, so a request whose lease ran out cannot end or answer its successor's.
      await trx.schema.withSchema(schema).alterTable('idempotency_keys', (t) => {
        t.uuid('lease_token');
      });
      // The retention purge finds expired keys without scanning the table.
      await trx.raw('create index idempotency_keys_created on ??.idempotency_keys (created_at)', [schema]);
    },
  },
  {
    name: '005_rate_limits',
    async up(trx, schema) {
      // One token bucket per organization and kind of request, shared by every gateway replica
      // (rate-limit/bucket-store.ts). Each lease updates its row: room on the page keeps the updates HOT.
      await trx.raw(
        `create table ??.rate_limits (
           org_id integer not null,
           kind varchar(10) not null,
           tokens double precision not null,
           granted integer not null,
           refilled_at timestamptz not null,
           primary key (org_id, kind)
         ) with (fillfactor = 50)`,
        [schema],
      );
    },
  },
  {
    name: '006_replicas',
    async up(trx, schema) {
      // The gateway replicas alive, each beating every second (rate-limit/replicas.ts): the cap on an
      // organization's requests in flight is divided among them.
      await trx.raw('create table ??.replicas (id uuid primary key, seen_at timestamptz not null)', [schema]);
    },
  },
];
