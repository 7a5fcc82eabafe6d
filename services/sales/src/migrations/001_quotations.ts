import type { Migration } from '@bo/runtime';

export const migration: Migration = {
  name: '001_quotations',
  async up(trx, schema) {
    // `status` holds what an action set; `expired` is derived from valid_until at read time
    // (see quotation/quotation-status.ts), so it is never stored and never stale.
    await trx.schema.withSchema(schema).createTable('quotations', (t) => {
      t.increments('id');
      t.integer('org_id').notNullable();
      t.string('quotation_number', 50).notNullable();
      t.string('quotation_type', 16).notNullable();
      t.string('status', 16).notNullable();
      t.integer('partner_id').notNullable();
      t.timestamp('quotation_date', { useTz: true }).notNullable();
      t.date('valid_until').notNullable();
      t.text('comments');
      t.string('quotation_reference', 200);
      t.decimal('subtotal', 20, 2).notNullable().defaultTo(0);
      t.decimal('tax_amount', 20, 2).notNullable().defaultTo(0);
      t.decimal('discount_total', 20, 2).notNullable().defaultTo(0);
      t.decimal('total', 20, 2).notNullable().defaultTo(0);
      t.integer('line_count').notNullable().defaultTo(0);
      t.integer('invoice_id');
      t.string('invoicenumber', 64);
      t.string('invoicetype', 16);
      t.timestamp('converted_at', { useTz: true });
      // The operation key of the attempt that started the conversion (see migration 003).
      t.string('convert_key', 255);
      t.timestamp('cancelled_at', { useTz: true });
      t.string('created_by', 64);
      t.string('updated_by', 64);
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
      t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
      t.unique(['org_id', 'quotation_number'], { indexName: 'quotations_org_number_unique' });
    });
    await trx.raw(
      `alter table ??.quotations add constraint quotations_status_check check (status in ('draft','sent','accepted','converted','cancelled'))`,
      [schema],
    );
    await trx.raw(
      `alter table ??.quotations add constraint quotations_type_check check (quotation_type in ('quotation','proforma','estimate'))`,
      [schema],
    );
    await trx.raw('create index quotations_org_newest on ??.quotations (org_id, id desc)', [schema]);

    await trx.schema.withSchema(schema).createTable('quotation_lines', (t) => {
      t.increments('id');
      t.integer('org_id').notNullable();
      t.integer('quotation_id').notNullable().references('id').inTable(`${schema}.quotations`);
      t.string('product_id', 64).notNullable();
      t.string('product_name', 200);
      t.text('description');
      t.decimal('quantity', 18, 4).notNullable();
      t.decimal('price', 18, 4).notNullable();
      t.decimal('discount', 7, 4).notNullable().defaultTo(0);
      t.decimal('tax_rate', 7, 4).notNullable();
      t.boolean('tax_included').notNullable();
      t.decimal('subtotal', 20, 2).notNullable();
      t.decimal('tax_amount', 20, 2).notNullable();
      t.decimal('total', 20, 2).notNullable();
      t.decimal('discount_amount', 20, 2).notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
      t.index(['quotation_id', 'id']);
    });

    // Read model of partners fed by partners.partner.* events (names for lists and search, currency).
    await trx.schema.withSchema(schema).createTable('partner_directory', (t) => {
      t.integer('org_id').notNullable();
      t.integer('id').notNullable();
      t.string('partnername', 200).notNullable();
      t.string('display_name', 200).notNullable();
      t.string('currency', 3);
      t.boolean('deleted').notNullable().defaultTo(false);
      t.timestamp('source_updated_at', { useTz: true }).notNullable();
      t.primary(['org_id', 'id']);
    });
  },
};
