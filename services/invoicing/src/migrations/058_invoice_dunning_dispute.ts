import type { Migration } from '@bo/runtime';

export const migration: Migration = {
  // A customer invoice the customer contests gets no reminder while it is disputed (docs/dunning.md):
  // the flag, why, and since when, set and cleared by `action: "dispute"` on /invoicing/dunning.
  name: '058_invoice_dunning_dispute',
  async up(trx, schema) {
    const q = `"${schema.replace(/"/g, '""')}"`;
    await trx.raw(
      `alter table ${q}.invoices
         add column dunning_disputed boolean not null default false,
         add column dunning_dispute_reason text,
         add column dunning_disputed_at timestamptz`,
    );
  },
};
