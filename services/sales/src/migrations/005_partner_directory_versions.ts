import type { Migration } from '@bo/runtime';

export const migration: Migration = {
  // The shared partner read model (runtime read-models/partner-directory.ts): the newest record by
  // the partner's version instead of a timestamp cut to the second, its type for the role rules,
  // and the deletion time. Rows kept before have no type: the first use asks partners again.
  name: '005_partner_directory_versions',
  async up(trx, schema) {
    await trx.schema.withSchema(schema).alterTable('partner_directory', (t) => {
      t.string('partner_type', 16);
      t.integer('version').notNullable().defaultTo(0);
      t.timestamp('deleted_at', { useTz: true });
    });
    await trx.raw('update ??.partner_directory set deleted_at = now() where deleted', [schema]);
    await trx.schema.withSchema(schema).alterTable('partner_directory', (t) => {
      t.dropColumn('deleted');
      t.dropColumn('source_updated_at');
    });
  },
};
