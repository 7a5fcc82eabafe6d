import type { Migration } from '@bo/runtime';

export const migration: Migration = {
  name: '001_invoicing',
  async up(trx, schema) {
    await trx.schema.withSchema(schema).createTable('invoices', (t) => {
      t.increments('id');
      t.integer('org_id').notNullable();
      t.string('invoicenumber', 50).notNullable();
      t.string('invoicetype', 16).notNullable();
      t.integer('partner_id').notNullable();
      // `overdue` is never stored: it is computed from invoicedue at read time.
      t.string('invoicestatus', 16).notNullable();
      t.timestamp('invoicedatetime', { useTz: true }).notNullable();
      t.date('invoicedue');
      t.text('comments');
      t.string('invoicereference', 200);
      t.text('invoiceterms');
      t.decimal('subtotal', 18, 2).notNullable().defaultTo(0);
      t.decimal('tax_amount', 18, 2).notNullable().defaultTo(0);
      t.decimal('invoicetotal', 18, 2).notNullable().defaultTo(0);
      t.decimal('amount_paid', 18, 2).notNullable().defaultTo(0);
      t.string('sourceid', 64);
      t.string('sourcenumber', 64);
      t.string('sourcetype', 64);
      t.string('chartofaccounts', 100);
      t.string('invoicejournal', 100);
      t.string('tradeaccount', 100);
      t.string('created_by', 64);
      // Recurring contract (only on a parent) and the link of a child to its parent and run date.
      t.boolean('recurring_enabled').notNullable().defaultTo(false);
      t.string('recurring_frequency', 16);
      t.date('recurring_start_date');
      t.date('recurring_next_run_date');
      t.integer('recurring_next_index').notNullable().defaultTo(0);
      t.integer('recurring_occurrences').notNullable().defaultTo(0);
      t.integer('recurring_generated').notNullable().defaultTo(0);
      t.string('recurring_status', 16);
      t.text('recurring_cancellation_reason');
      t.integer('parent_id').references('id').inTable(`${schema}.invoices`);
      t.date('run_date');
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
      t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
      t.timestamp('validated_at', { useTz: true });
      t.timestamp('cancelled_at', { useTz: true });
      t.timestamp('paid_at', { useTz: true });
    });
    await trx.raw(
      `alter table ??.invoices add constraint invoices_status_check check (invoicestatus in ('draft','proforma','open','paid','cancelled')),
           add constraint invoices_type_check check (invoicetype in ('invoiceout','creditout','invoicein','creditin')),
           add constraint invoices_paid_check check (amount_paid >= 0 and amount_paid <= invoicetotal)`,
      [schema],
    );
    await trx.raw('create unique index invoices_org_number on ??.invoices (org_id, invoicenumber)', [schema]);
    // A source document (a quotation) becomes at most one invoice.
    await trx.raw('create unique index invoices_org_source on ??.invoices (org_id, sourcetype, sourceid) where sourceid is not null', [
      schema,
    ]);
    // At most one child per contract and run date, whichever scheduler instance gets there.
    await trx.raw('create unique index invoices_parent_run on ??.invoices (parent_id, run_date) where parent_id is not null', [schema]);
    await trx.raw('create index invoices_org_date on ??.invoices (org_id, invoicedatetime desc, id desc)', [schema]);
    await trx.raw(
      `create index invoices_recurring_due on ??.invoices (recurring_next_run_date) where recurring_enabled and recurring_status = 'active'`,
      [schema],
    );

    await trx.schema.withSchema(schema).createTable('invoice_lines', (t) => {
      t.increments('id');
      t.integer('org_id').notNullable();
      t.integer('invoice_id').notNullable().references('id').inTable(`${schema}.invoices`);
      t.string('product_id', 64).notNullable();
      t.string('product_name', 200);
      t.text('description');
      t.decimal('quantity', 18, 4).notNullable();
      t.decimal('price', 18, 4).notNullable();
      t.decimal('discount', 9, 4).notNullable().defaultTo(0);
      t.decimal('tax_rate', 9, 4).notNullable();
      t.boolean('tax_included').notNullable();
      t.decimal('subtotal', 18, 2).notNullable();
      t.decimal('tax_amount', 18, 2).notNullable();
      t.decimal('total', 18, 2).notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
      t.index(['invoice_id', 'id']);
    });

    await trx.schema.withSchema(schema).createTable('journal_entries', (t) => {
      t.increments('id');
      t.integer('org_id').notNullable();
      t.integer('invoice_id').notNullable().references('id').inTable(`${schema}.invoices`);
      t.string('kind', 10).notNullable(); // 'invoice' or 'payment'
      t.string('journalname', 100).notNullable();
      t.date('journaldate').notNullable();
      t.decimal('amount', 18, 2).notNullable();
      t.string('reference', 64).notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
      t.index(['invoice_id', 'kind']);
    });
    await trx.schema.withSchema(schema).createTable('journal_lines', (t) => {
      t.increments('id');
      t.integer('entry_id').notNullable().references('id').inTable(`${schema}.journal_entries`);
      t.string('account', 100).notNullable();
      t.string('label', 100).notNullable();
      t.decimal('debit', 18, 2).notNullable();
      t.decimal('credit', 18, 2).notNullable();
      t.index(['entry_id']);
    });

    await trx.schema.withSchema(schema).createTable('payments', (t) => {
      t.increments('id');
      t.integer('org_id').notNullable();
      t.integer('invoice_id').notNullable().references('id').inTable(`${schema}.invoices`);
      t.decimal('amount', 18, 2).notNullable();
      t.date('payment_date').notNullable();
      t.string('journal', 100).notNullable();
      t.integer('journal_entry_id').notNullable().references('id').inTable(`${schema}.journal_entries`);
      t.string('created_by', 64);
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
      t.index(['invoice_id']);
    });

    // Read model of partners, fed by partner events (and by the partners RPC when an event has not arrived yet).
    await trx.schema.withSchema(schema).createTable('partner_directory', (t) => {
      t.integer('org_id').notNullable();
      t.integer('id').notNullable();
      t.string('partnername', 200).notNullable();
      t.string('display_name', 200).notNullable();
      t.timestamp('source_updated_at', { useTz: true }).notNullable();
      t.timestamp('deleted_at', { useTz: true });
      t.primary(['org_id', 'id']);
    });
  },
};
