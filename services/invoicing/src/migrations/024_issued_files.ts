import type { Migration } from '@bo/runtime';

export const migration: Migration = {
  // An issued invoice's files (PDF, UBL, CII, Factur-X) are kept as first rendered from what it
  // froze and served byte-identical ever after (docs/invoicing.md "Issued invoices never change"):
  // one row per invoice and format, the natural key, so racing first renders keep one.
  name: '024_issued_files',
  async up(trx, schema) {
    await trx.schema.withSchema(schema).createTable('issued_files', (t) => {
      t.integer('org_id').notNullable();
      t.integer('invoice_id').notNullable().references('id').inTable(`${schema}.invoices`);
      t.string('format', 16).notNullable();
      t.string('filename', 200).notNullable();
      t.string('content_type', 100).notNullable();
      t.binary('content').notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
      t.primary(['org_id', 'invoice_id', 'format']);
    });
  },
};
