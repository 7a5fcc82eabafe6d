import type { Migration } from '@bo/runtime';

export const migration: Migration = {
  // Stock follows validated documents (docs/design.md): a customer invoice may sell stock the ledger
  // does not hold yet (the effect is asynchronous, and the goods did leave), so quantities and
  // move lines may now be negative. Adjustments still refuse negative targets in their schema.
  name: '003_document_moves',
  async up(trx, schema) {
    await trx.raw('alter table ??.stock_quantities drop constraint stock_quantities_non_negative', [schema]);
    await trx.raw('alter table ??.stock_move_lines drop constraint stock_move_lines_consistent', [schema]);
    await trx.raw(
      'alter table ??.stock_move_lines add constraint stock_move_lines_consistent check (change = new_stock - previous_stock)',
      [schema],
    );
    await trx.schema.withSchema(schema).alterTable('stock_moves', (t) => {
      // The validated document a `document` move follows; null for every other source.
      t.string('document_type', 16);
      t.integer('document_id');
      t.string('document_number', 50);
    });
  },
};
