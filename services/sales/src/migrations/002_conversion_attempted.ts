import type { Migration } from '@bo/runtime';

export const migration: Migration = {
  name: '002_conversion_attempted',
  async up(trx, schema) {
    // Set when a conversion starts (first by a timeout alone, see 003): the invoice may exist with
    // the lines of that moment, so the quotation takes no more changes until the conversion ends.
    await trx.schema.withSchema(schema).alterTable('quotations', (t) => {
      t.timestamp('conversion_attempted_at', { useTz: true });
    });
  },
};
