import type { Migration } from '@bo/runtime';

export const migration: Migration = {
  // The shared partner read model (runtime read-models/partner-directory.ts): the newest record by
  // the partner's version instead of a timestamp cut to the second, and its type for the role
  // rules. Rows kept before have no type: the first use asks partners again.
  name: '004_partner_directory_versions',
  async up(trx, schema) {
    await trx.schema.withSchema(schema).alterTable('partner_directory', (t) => {
      t.string('partner_type', 16);
      t.string('currency', 3);
      t.integer('version').notNullable().defaultTo(0);
      t.dropColumn('source_updated_at');
    });
  },
};
