import type { Migration } from '@bo/runtime';

export const migration: Migration = {
  // A product's variants version counts the variants made under it: every variant inserted bumps it,
  // by a trigger, so no writer (of any version of the code, or by hand) can add a variant to a
  // product without writing the product's row. A delete of the product decided on an unlocked read
  // stores only while the row is the one it read (product.repository.ts): a variant made in between,
  // which its statement's snapshot would not see, makes it write nothing instead of leaving that
  // variant live under a deleted product.
  name: '009_product_variants_version',
  async up(trx, schema) {
    await trx.raw('alter table ??.products add column variants_version bigint not null default 0', [schema]);
    await trx.raw(
      `create function ??.bump_variants_version() returns trigger language plpgsql as $$
       begin
         update ??.products p set variants_version = p.variants_version + 1
          where p.id in (select distinct v.parent_product_id from made v);
         return null;
       end $$`,
      [schema, schema],
    );
    await trx.raw(
      `create trigger variants_bump_variants_version after insert on ??.variants
       referencing new table as made for each statement execute function ??.bump_variants_version()`,
      [schema, schema],
    );
  },
};
