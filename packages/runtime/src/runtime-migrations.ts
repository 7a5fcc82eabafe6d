import { withLockTimeout, type Migration } from './db';
import { AS_DECIDED_CHECK, NOT_AS_DECIDED_SQLSTATE } from './one-statement';
import {
  ALREADY_RECORDED_SQLSTATE,
  KEY_FREE_CHECK,
  KEY_IN_USE_SQLSTATE,
  OPERATION_KEYS,
  OPERATION_KEYS_SCHEMA,
  RECORDED_CHECK,
} from './idempotency';

/** Tables the runtime keeps in every service schema: the outbox and the inbox. */
export const runtimeMigrations: Migration[] = [
  {
    name: '000_runtime_outbox_inbox',
    async up(trx, schema) {
      await trx.schema.withSchema(schema).createTable('outbox', (t) => {
        t.bigIncrements('id');
        t.uuid('event_id').notNullable().unique();
        t.text('type').notNullable();
        t.integer('org_id').notNullable();
        t.jsonb('envelope').notNullable();
        t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
        t.timestamp('published_at', { useTz: true });
        t.integer('attempts').notNullable().defaultTo(0);
        t.text('last_error');
      });
      await trx.raw('create index outbox_unpublished on ??.outbox (id) where published_at is null', [schema]);
      await trx.schema.withSchema(schema).createTable('inbox', (t) => {
        t.text('consumer').notNullable();
        t.uuid('event_id').notNullable();
        t.text('type').notNullable();
        t.timestamp('processed_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
        t.primary(['consumer', 'event_id']);
      });
    },
  },
  {
    name: '001_runtime_document_sequences',
    async up(trx, schema) {
      await trx.schema.withSchema(schema).createTable('document_sequences', (t) => {
        t.integer('org_id').notNullable();
        t.string('series', 20).notNullable();
        t.bigInteger('last_value').notNullable();
        t.primary(['org_id', 'series']);
      });
    },
  },
  {
    name: '002_runtime_idempotency',
    async up(trx, schema) {
      // One row per write command that ran here (docs/design.md section 3): written in the transaction of
      // its effect, so a redelivered or retried command finds it and answers the same reply.
      await trx.schema.withSchema(schema).createTable('idempotency', (t) => {
        t.integer('org_id').notNullable();
        t.string('key', 255).notNullable();
        t.string('operation', 100).notNullable();
        t.string('request_hash', 64).notNullable();
        t.integer('status').notNullable();
        t.text('reply').notNullable();
        t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
        t.primary(['org_id', 'key']);
      });
      await trx.raw('create index idempotency_created on ??.idempotency (created_at)', [schema]);
    },
  },
  {
    name: '003_runtime_event_deliveries',
    async up(trx, schema) {
      // For the in-process bus, which holds nothing itself (RabbitMQ's durable queues do this there):
      // one row per event a consumer of this schema has yet to handle, from the moment the bus took it
      // until its handler succeeded, with the next attempt and when it is due. The next start resumes them.
      await trx.schema.withSchema(schema).createTable('event_deliveries', (t) => {
        t.text('consumer').notNullable();
        t.uuid('event_id').notNullable();
        t.text('type').notNullable();
        t.jsonb('envelope').notNullable();
        t.integer('attempt').notNullable();
        t.timestamp('due_at', { useTz: true }).notNullable();
        t.text('last_error');
        t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
        t.primary(['consumer', 'event_id']);
      });
      // The events a consumer gave up on after EVENT_MAX_ATTEMPTS, kept for a person to look at.
      await trx.schema.withSchema(schema).createTable('event_dead_letters', (t) => {
        t.text('consumer').notNullable();
        t.uuid('event_id').notNullable();
        t.text('type').notNullable();
        t.jsonb('envelope').notNullable();
        t.integer('attempts').notNullable();
        t.text('last_error');
        t.timestamp('dead_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
        t.primary(['consumer', 'event_id']);
      });
    },
  },
  {
    name: '004_runtime_retention_indexes',
    async up(trx, schema) {
      // The retention purge finds expired rows by these, without scanning the tables.
      await trx.raw('create index outbox_published on ??.outbox (published_at) where published_at is not null', [schema]);
      await trx.raw('create index inbox_processed on ??.inbox (processed_at)', [schema]);
    },
  },
  {
    name: '005_runtime_outbox_trace_context',
    async up(trx, schema) {
      // The W3C trace context an event was recorded in, so the relay publishes it in the trace of
      // the request that caused it rather than its own. Null when tracing was off.
      await withLockTimeout(trx, () =>
        trx.schema.withSchema(schema).alterTable('outbox', (t) => {
          t.text('traceparent');
          t.text('tracestate');
        }),
      );
    },
  },
  {
    name: '006_runtime_outbox_claims',
    async up(trx, schema) {
      // Until when a row is left to whoever claimed it: the writer publishing it right after its
      // commit, or a relay poll. The poll takes only unclaimed rows and rows whose claim ran out.
      await withLockTimeout(trx, () =>
        trx.schema.withSchema(schema).alterTable('outbox', (t) => {
          t.timestamp('claimed_until', { useTz: true });
        }),
      );
    },
  },
  {
    name: '007_runtime_idempotency_recorded_check',
    async up(trx, schema) {
      // Fails the statement that records a reply when a twin's record is live (idempotency.ts), so a
      // COMMIT sent right behind it rolls the transaction back instead of committing a second effect.
      await trx.raw(
        `create function ??.${RECORDED_CHECK}(recorded bigint) returns bigint language plpgsql as $$
         begin
           if recorded = 0 then
             raise exception 'operation key already recorded' using errcode = '${ALREADY_RECORDED_SQLSTATE}';
           end if;
           return recorded;
         end $$`,
        [schema],
      );
    },
  },
  {
    name: '008_runtime_idempotency_key_hold',
    async up(trx, schema) {
      // Fails the statement that holds an operation key when a twin's transaction holds it
      // (idempotency.ts holdKey), so the twin is answered 409 "still in progress".
      await trx.raw(
        `create function ??.${KEY_FREE_CHECK}(free boolean) returns boolean language plpgsql as $$
         begin
           if not free then
             raise exception 'operation key held by a twin still running' using errcode = '${KEY_IN_USE_SQLSTATE}';
           end if;
           return free;
         end $$`,
        [schema],
      );
    },
  },
  {
    name: '009_runtime_operation_keys',
    async up(trx, schema) {
      // One key, one request, across services (idempotency.ts): the records every service shares,
      // made by whichever service migrates first (the others wait for it on this lock, then find it).
      await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`migrate:${OPERATION_KEYS}`]);
      await trx.raw('create schema if not exists ??', [OPERATION_KEYS_SCHEMA]);
      await trx.raw(
        `create table if not exists ${OPERATION_KEYS} (
           org_id integer not null,
           key varchar(255) not null,
           operation varchar(100) not null,
           request_hash varchar(64) not null,
           status integer not null,
           reply text not null,
           created_at timestamptz not null default now(),
           primary key (org_id, key))`,
      );
      await trx.raw(`create index if not exists operation_keys_created on ${OPERATION_KEYS} (created_at)`);
      // The service's live records join them, so a key recorded before this version refuses another
      // request too. A key two services recorded before goes to the earlier request; each service
      // still replays its own record from its own table until that expires (findRecorded).
      await trx.raw(
        `insert into ${OPERATION_KEYS} as record (org_id, key, operation, request_hash, status, reply, created_at)
         select org_id, key, operation, request_hash, status, reply, created_at from ??.idempotency
         on conflict (org_id, key) do update set operation = excluded.operation, request_hash = excluded.request_hash,
           status = excluded.status, reply = excluded.reply, created_at = excluded.created_at
         where excluded.created_at < record.created_at`,
        [schema],
      );
    },
  },
  {
    name: '010_runtime_operation_keys_in_progress',
    async up(trx) {
      // A two-step write takes its key before its first step (claimKey): a row in progress, its claim
      // token and its lease; the reply replaces it. Made by whichever service migrates first.
      await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`migrate:${OPERATION_KEYS}`]);
      await trx.raw(`alter table ${OPERATION_KEYS} add column if not exists claim uuid, add column if not exists lease_until timestamptz`);
    },
  },
  {
    name: '011_runtime_one_statement_as_decided',
    async up(trx, schema) {
      // Fails a one-statement write whose decision did not stand (one-statement.ts `expects`), so
      // nothing of it stays and the runtime runs the write the usual way.
      await trx.raw(
        `create function ??.${AS_DECIDED_CHECK}(as_decided boolean) returns boolean language plpgsql as $$
         begin
           if not coalesce(as_decided, false) then
             raise exception 'what a one-statement write decided on was not there' using errcode = '${NOT_AS_DECIDED_SQLSTATE}';
           end if;
           return as_decided;
         end $$`,
        [schema],
      );
    },
  },
];
