import type { Migration } from '@bo/runtime';

export const migration: Migration = {
  // Vendor bills paid by a SEPA credit-transfer file (docs/bank.md "Paying vendors"): the file as
  // sent, and each bill in it with its transfer's end-to-end id. A bill is in at most one file at a
  // time while it is `in_payment`; the debit line naming its end-to-end id reconciles it (`paid`).
  name: '048_payment_files',
  async up(trx, schema) {
    await trx.schema.withSchema(schema).createTable('payment_files', (t) => {
      t.increments('id');
      t.integer('org_id').notNullable();
      t.string('message_id', 35).notNullable();
      t.date('execution_date').notNullable();
      t.string('debtor_iban', 40).notNullable();
      t.string('currency', 3).notNullable();
      t.decimal('total', 18, 2).notNullable();
      t.integer('transfers').notNullable();
      t.text('content').notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
      t.unique(['org_id', 'message_id']);
    });
    await trx.schema.withSchema(schema).createTable('payment_file_bills', (t) => {
      t.increments('id');
      t.integer('org_id').notNullable();
      t.integer('file_id').notNullable().references('id').inTable(`${schema}.payment_files`);
      t.integer('invoice_id').notNullable().references('id').inTable(`${schema}.invoices`);
      t.integer('partner_id').notNullable();
      t.decimal('amount', 18, 2).notNullable();
      t.string('creditor_iban', 40).notNullable();
      t.string('end_to_end_id', 35).notNullable();
      t.string('status', 12).notNullable().defaultTo('in_payment');
      /** The bank line whose reconciliation paid it. */
      t.integer('line_id').references('id').inTable(`${schema}.bank_lines`);
      t.unique(['org_id', 'end_to_end_id']);
      t.index(['file_id']);
    });
    await trx.raw(
      `alter table ??.payment_file_bills add constraint payment_file_bills_status_check check (status in ('in_payment', 'paid'))`,
      [schema],
    );
    await trx.raw(`create unique index payment_file_bills_open on ??.payment_file_bills (org_id, invoice_id) where status = 'in_payment'`, [
      schema,
    ]);
  },
};
