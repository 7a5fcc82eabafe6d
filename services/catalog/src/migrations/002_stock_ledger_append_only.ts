import type { Migration } from '@bo/runtime';

export const migration: Migration = {
  // The ledger is the stock's history: the database itself refuses to rewrite it, so no code path
  // (or hand-run fix) can make a quantity disagree with the moves that explain it.
  name: '002_stock_ledger_append_only',
  async up(trx, schema) {
    await trx.raw(
      `create function ??.refuse_ledger_rewrite() returns trigger language plpgsql as $$
       begin
         raise exception 'stock moves are append-only: % on % refused', tg_op, tg_table_name using errcode = 'restrict_violation';
       end $$`,
      [schema],
    );
    for (const table of ['stock_moves', 'stock_move_lines']) {
      await trx.raw(
        `create trigger ${table}_append_only before update or delete or truncate on ??.?? for each statement execute function ??.refuse_ledger_rewrite()`,
        [schema, table, schema],
      );
    }
    await trx.raw(
      'alter table ??.stock_move_lines add constraint stock_move_lines_consistent check (change = new_stock - previous_stock and new_stock >= 0 and previous_stock >= 0)',
      [schema],
    );
  },
};
