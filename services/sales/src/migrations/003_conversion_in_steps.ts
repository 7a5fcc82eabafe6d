import type { Migration } from '@bo/runtime';

export const migration: Migration = {
  name: '003_conversion_in_steps',
  async up(trx, schema) {
    // A conversion commits in two transactions around the call to invoicing (none is open during
    // the call). Between them the quotation is frozen (conversion_attempted_at set, status still
    // open) and these columns let any later attempt, or the recovery task, finish the same one.
    await trx.schema.withSchema(schema).alterTable('quotations', (t) => {
      // What the attempt that froze it asked for, so a resumption makes the same invoice.
      t.string('convert_invoicetype', 16);
      t.string('convert_user', 64);
      // Counts attempts; an attempt changes the row after the call only if no other attempt began since.
      t.integer('conversion_attempts').notNullable().defaultTo(0);
      // An attempt in flight holds the conversion until then; set to the end time when it ends.
      t.timestamp('conversion_lease_until', { useTz: true });
      // The invoice as the conversion answered it, so that answer can be given again without invoicing.
      t.jsonb('converted_invoice');
    });
    // convert_key was the converting request's Idempotency-Key; it now holds the operation key of
    // the attempt that started the conversion (the same value when the client sent a key).
    await trx.raw(
      `update ??.quotations set converted_invoice = jsonb_build_object(
         'id', invoice_id, 'orgid', org_id, 'invoicenumber', invoicenumber, 'invoicetype', invoicetype, 'partner', partner_id::text,
         'invoicestatus', 'draft', 'subtotal', subtotal, 'tax_amount', tax_amount, 'invoicetotal', total)
       where status = 'converted' and invoice_id is not null`,
      [schema],
    );
    // The recovery task's search: the few quotations frozen and not converted.
    await trx.raw(
      `create index quotations_conversion_unfinished on ??.quotations (conversion_lease_until) where conversion_attempted_at is not null and status in ('draft','sent','accepted')`,
      [schema],
    );
  },
};
