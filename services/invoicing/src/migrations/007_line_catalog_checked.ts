import type { Migration } from '@bo/runtime';

export const migration: Migration = {
  // Lines made before lines were checked against the catalog may name any product id, even one of
  // another product: only checked lines move stock when their invoice is validated. Rows present now
  // are unchecked unless they carry a snapshot (made since 003); every line made from now on has
  // been checked (create, add line, conversion and recurring children all ask catalog first).
  name: '007_line_catalog_checked',
  async up(trx, schema) {
    await trx.raw('alter table ??.invoice_lines add column catalog_checked boolean not null default false', [schema]);
    await trx.raw('update ??.invoice_lines set catalog_checked = true where sku is not null or uom is not null', [schema]);
    await trx.raw('alter table ??.invoice_lines alter column catalog_checked set default true', [schema]);
  },
};
