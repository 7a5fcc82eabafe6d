import type { Migration } from '@bo/runtime';

export const migration: Migration = {
  // Document links are the server's own. A conversion (invoice <- quotation) is recorded in
  // converted_from_quotation_id by create_from_source alone, and a credit note's link to the
  // invoice it credits in credits_invoice_id once checked; sourcetype / sourceid / sourcenumber
  // stay the client's free text and link nothing (so their unique index goes: a client's text must
  // neither claim a quotation nor block its conversion). restock says whether a credit note returns
  // its goods to stock.
  //
  // Rows stored before: invoicing's own records cannot tell a conversion from a client that typed
  // `quotation` and an id (both went through the same columns and the same event), so none is kept
  // as a conversion; each is listed in source_link_review for an operator. A credit note's claim is
  // checked against invoicing's own invoices: kept when it holds (same organization and partner,
  // paired types, the credited invoice issued), listed otherwise.
  name: '009_server_made_links_and_partial_credits',
  async up(trx, schema) {
    await trx.raw(
      `alter table ??.invoices add column converted_from_quotation_id integer,
           add column credits_invoice_id integer references ??.invoices (id),
           add column restock boolean not null default true`,
      [schema, schema],
    );
    await trx.raw('drop index ??.invoices_org_source', [schema]);
    // A quotation becomes at most one invoice.
    await trx.raw(
      `create unique index invoices_org_converted_quotation on ??.invoices (org_id, converted_from_quotation_id)
           where converted_from_quotation_id is not null`,
      [schema],
    );
    // The credit notes of an invoice, summed under its lock when one of them is validated.
    await trx.raw('create index invoices_credits_invoice on ??.invoices (credits_invoice_id) where credits_invoice_id is not null', [
      schema,
    ]);
    await trx.schema.withSchema(schema).createTable('source_link_review', (t) => {
      t.integer('invoice_id').primary();
      t.integer('org_id').notNullable();
      t.string('invoicenumber', 50).notNullable();
      t.string('invoicetype', 16).notNullable();
      t.string('sourcetype', 64);
      t.string('sourceid', 64);
      t.string('sourcenumber', 64);
      t.text('reason').notNullable();
      t.timestamp('noted_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
    });
    await trx.raw(
      `update ??.invoices n set credits_invoice_id = i.id
           from ??.invoices i
          where n.invoicetype in ('creditout', 'creditin') and n.sourcetype ~* '^(invoice|invoiceout|invoicein)$'
            and i.id::text = n.sourceid and i.org_id = n.org_id
            and i.partner_id = n.partner_id and i.invoicestatus in ('open', 'paid')
            and i.invoicetype = case n.invoicetype when 'creditout' then 'invoiceout' else 'invoicein' end`,
      [schema, schema],
    );
    await trx.raw(
      `insert into ??.source_link_review (invoice_id, org_id, invoicenumber, invoicetype, sourcetype, sourceid, sourcenumber, reason)
         select id, org_id, invoicenumber, invoicetype, sourcetype, sourceid, sourcenumber,
                case when sourcetype ~* '^\\s*quotation\\s*$'
                     then 'names a quotation: not kept as a conversion (a conversion made before links were the server''s cannot be told from a client''s claim)'
                     else 'names an invoice it cannot credit (unknown, another partner''s, not issued, or of an unpaired type): not kept as the credited invoice'
                end
           from ??.invoices
          where sourceid is not null
            and (sourcetype ~* '^\\s*quotation\\s*$'
                 or (invoicetype in ('creditout', 'creditin') and sourcetype ~* '^(invoice|invoiceout|invoicein)$' and credits_invoice_id is null))`,
      [schema, schema],
    );
  },
};
