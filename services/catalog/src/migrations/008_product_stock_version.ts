import type { Migration } from '@bo/runtime';

export const migration: Migration = {
  // A product's stock version counts the moves of its stock: every stock move inserted bumps it, by
  // a trigger, so no writer (of any version of the code, or by hand) can move stock without it. A
  // stock adjustment decided on an unlocked read stores only while the version is still the one it
  // read (adjustment.repository.ts): a move committed in between makes it write nothing.
  name: '008_product_stock_version',
  async up(trx, schema) {
    await trx.raw('alter table ??.products add column stock_version bigint not null default 0', [schema]);
    await trx.raw(
      `create function ??.bump_stock_version() returns trigger language plpgsql as $$
       begin
         update ??.products p set stock_version = p.stock_version + 1
          where p.id in (select distinct m.product_id from moved m);
         return null;
       end $$`,
      [schema, schema],
    );
    await trx.raw(
      `create trigger stock_moves_bump_stock_version after insert on ??.stock_moves
       referencing new table as moved for each statement execute function ??.bump_stock_version()`,
      [schema, schema],
    );
  },
};
