import type { Migration } from '@bo/runtime';

export const migration: Migration = {
  // The organization's choices for receiving e-invoices (docs/inbound.md): whether an unknown
  // supplier is created as a vendor (`inbound_create_partners`), off until it is set.
  name: '049_inbound_settings',
  async up(trx, schema) {
    const q = `"${schema.replace(/"/g, '""')}"`;
    await trx.raw(
      `create table ${q}.inbound_settings (
           org_id integer primary key,
           create_partners boolean not null default false,
           updated_at timestamptz not null default now())`,
    );
  },
};
