import { type Migration, withLockTimeout } from '@bo/runtime';

export const migration: Migration = {
  // A document moves each of its products' stock once, whatever happens to the inbox: processed
  // event ids are forgotten after INBOX_RETENTION_HOURS, and an event delivered again after that
  // (moved back from a dead-letter queue, say) must find the move it made. Stock is kept per product,
  // so a document's lines of one product make one move: the natural key is (org, document, product).
  // Moves a document made twice before this key existed stay (the ledger is append-only) and are
  // listed in stock_move_duplicates beside the first, for a person to correct with an adjustment;
  // the key covers every other move.
  name: '004_stock_moves_natural_key',
  async up(trx, schema) {
    await trx.schema.withSchema(schema).createTable('stock_move_duplicates', (t) => {
      t.bigInteger('move_id').primary().references('id').inTable(`${schema}.stock_moves`);
      t.bigInteger('first_move_id').notNullable().references('id').inTable(`${schema}.stock_moves`);
      t.timestamp('noted_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
    });
    const found: unknown = await trx.raw(
      `insert into ??.stock_move_duplicates (move_id, first_move_id)
       select id, first_id from (
         select id, first_value(id) over (partition by org_id, document_id, product_id order by id) as first_id
         from ??.stock_moves where document_id is not null) m
       where id <> first_id
       returning move_id`,
      [schema, schema],
    );
    const duplicates = (found as { rows: Array<{ move_id: string }> }).rows.map((r) => Number(r.move_id)).sort((a, b) => a - b);
    const except = duplicates.length ? ` and id not in (${duplicates.join(', ')})` : '';
    await withLockTimeout(trx, () =>
      trx.raw(
        `create unique index stock_moves_document_product on ??.stock_moves (org_id, document_id, product_id) where document_id is not null${except}`,
        [schema],
      ),
    );
  },
};
