import type { Migration } from '@bo/runtime';

export const migration: Migration = {
  name: '003_webhooks_route_claims',
  async up(trx, schema) {
    // Routing without a transaction around RabbitMQ (delivery/routes.ts): the types a write is
    // routing until its endpoint commits, and the one lease a reconcile holds while it unroutes.
    await trx.raw(
      `create table ??.route_claims (
         id uuid primary key default gen_random_uuid(),
         types jsonb not null,
         expires_at timestamptz not null);
       create table ??.route_lease (
         id integer primary key default 1 check (id = 1),
         holder uuid,
         until timestamptz,
         broken_until timestamptz);
       insert into ??.route_lease (id) values (1)`,
      [schema, schema, schema],
    );
  },
};
