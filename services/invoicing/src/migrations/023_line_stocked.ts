import type { Migration } from '@bo/runtime';

export const migration: Migration = {
  // A credit note returns to stock at most what its invoice delivered (docs/invoicing.md "Credit
  // notes"): each line keeps what its validation moved in stock (`stocked`; null until validated),
  // so the cap reads it instead of guessing from today's flags. Lines of documents validated before
  // moved what their event carried: the quantity of a line checked against the catalog, unless a
  // credit note returned no goods. A credit note's settlement of the invoice it credits is an
  // allocation marked `settles_credited`, at most one per note (the natural key of that effect).
  name: '023_line_stocked',
  async up(trx, schema) {
    await trx.raw('alter table ??.invoice_lines add column stocked numeric', [schema]);
    await trx.raw(
      `update ??.invoice_lines l
            set stocked = case when l.catalog_checked and (i.invoicetype not in ('creditout', 'creditin') or i.restock)
                               then l.quantity else 0 end
           from ??.invoices i
          where i.id = l.invoice_id and i.invoicestatus in ('open', 'paid', 'written_off')`,
      [schema, schema],
    );
    await trx.raw('alter table ??.payment_allocations add column settles_credited boolean not null default false', [schema]);
    await trx.raw(
      'create unique index payment_allocations_settles_credited on ??.payment_allocations (credit_note_id) where settles_credited',
      [schema],
    );
  },
};
