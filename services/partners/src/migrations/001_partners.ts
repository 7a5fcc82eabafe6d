import type { Migration } from '@bo/runtime';

export const migration: Migration = {
  name: '001_partners',
  async up(trx, schema) {
    await trx.schema.withSchema(schema).createTable('partners', (t) => {
      t.increments('id');
      t.integer('org_id').notNullable();
      t.string('partnername', 200).notNullable();
      t.string('display_name', 200).notNullable();
      t.string('partner_type', 16).notNullable();
      t.string('email', 254);
      t.string('phone', 50);
      t.text('address');
      t.string('tax_number', 50);
      t.decimal('credit_limit', 18, 2).notNullable().defaultTo(0);
      t.decimal('balance', 18, 2).notNullable().defaultTo(0);
      t.decimal('committed', 18, 2).notNullable().defaultTo(0);
      t.string('currency', 3);
      t.text('payment_terms');
      t.string('contact_person', 200);
      t.text('notes');
      t.string('created_by', 64);
      t.string('updated_by', 64);
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
      t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
      t.timestamp('deleted_at', { useTz: true });
    });
    await trx.raw(`alter table ??.partners add constraint partners_type_check check (partner_type in ('customer','vendor','both'))`, [
      schema,
    ]);
    await trx.raw('create index partners_org_live on ??.partners (org_id, id desc) where deleted_at is null', [schema]);

    // One row per document (invoice, credit note, bill, vendor credit) or payment that moved a balance.
    // What was paid on a document is derived from its payment rows, so events may arrive in any order.
    await trx.schema.withSchema(schema).createTable('partner_transactions', (t) => {
      t.bigIncrements('id');
      t.integer('org_id').notNullable();
      t.integer('partner_id').notNullable().references('id').inTable(`${schema}.partners`);
      t.string('type', 20).notNullable();
      t.string('source', 20).notNullable();
      t.integer('source_id').notNullable();
      t.integer('invoice_id').notNullable();
      t.string('document_number', 64).notNullable();
      t.date('date').notNullable();
      t.decimal('amount', 18, 2).notNullable();
      t.decimal('balance_effect', 18, 2).notNullable();
      t.uuid('event_id').notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
      t.unique(['org_id', 'source', 'source_id']);
      t.index(['org_id', 'partner_id', 'date']);
    });

    // Converted quotations whose invoice is not validated or cancelled yet (docs/design.md: committed).
    await trx.schema.withSchema(schema).createTable('commitments', (t) => {
      t.integer('org_id').notNullable();
      t.integer('invoice_id').notNullable();
      t.integer('partner_id');
      t.integer('quotation_id');
      t.string('quotation_number', 64);
      t.decimal('amount', 18, 2).notNullable().defaultTo(0);
      t.string('status', 10).notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
      t.timestamp('released_at', { useTz: true });
      t.primary(['org_id', 'invoice_id']);
    });
  },
};
