import type { Migration } from '@bo/runtime';

export const migration: Migration = {
  // Fees in the journal (docs/dunning.md): `post_fees` makes a letter's fee a validated customer
  // invoice of its own, taxed as `fee_tax` says (null: the default, exempt E), and the letter keeps
  // that invoice's id. One letter has at most one fee invoice and one invoice is the fee of at most
  // one letter.
  name: '059_dunning_fees',
  async up(trx, schema) {
    const q = `"${schema.replace(/"/g, '""')}"`;
    await trx.raw(
      `alter table ${q}.dunning_settings
         add column post_fees boolean not null default false,
         add column fee_tax jsonb`,
    );
    await trx.raw(`alter table ${q}.dunning_letters add column fee_invoice_id integer references ${q}.invoices (id)`);
    await trx.raw(
      `create unique index dunning_letters_fee_invoice on ${q}.dunning_letters (org_id, fee_invoice_id) where fee_invoice_id is not null`,
    );
  },
};
