import type { Migration } from '@bo/runtime';

export const migration: Migration = {
  // Lines know the catalog: each keeps what it named (variant, stock location) and a snapshot of the
  // product (SKU, unit of measure) taken when the line was made, so catalog edits never rewrite it.
  name: '003_line_catalog_snapshot',
  async up(trx, schema) {
    await trx.schema.withSchema(schema).alterTable('invoice_lines', (t) => {
      t.string('variant_id', 64);
      t.string('location_id', 64);
      t.string('sku', 100);
      t.string('uom', 50);
    });
  },
};
