import type { Migration } from '@bo/runtime';

export const migration: Migration = {
  // The organization's choices for bank statements (docs/bank.md): whether a line whose structured
  // reference names an open document is reconciled on import (`bank_autoreconcile`), on until it is set.
  name: '052_bank_settings',
  async up(trx, schema) {
    const q = `"${schema.replace(/"/g, '""')}"`;
    await trx.raw(
      `create table ${q}.bank_settings (
           org_id integer primary key,
           autoreconcile boolean not null default true,
           updated_at timestamptz not null default now())`,
    );
  },
};
