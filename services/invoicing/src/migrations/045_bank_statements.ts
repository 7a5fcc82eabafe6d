import type { Migration } from '@bo/runtime';

export const migration: Migration = {
  // Bank statements and their lines (docs/bank.md). A statement is known by its account and id
  // (a second import is a 409); a line by its natural key within its account (the bank's
  // reference, else a digest of what it says), so a line repeated within or between statements is
  // stored once. A line is reconciled at most once at a time: one active reconciliation per line.
  name: '045_bank_statements',
  async up(trx, schema) {
    await trx.schema.withSchema(schema).createTable('bank_statements', (t) => {
      t.increments('id');
      t.integer('org_id').notNullable();
      t.string('journal', 100).notNullable();
      t.string('iban', 40).notNullable();
      t.string('statement_id', 100).notNullable();
      t.string('sequence', 40);
      t.string('format', 10).notNullable();
      t.string('currency', 3).notNullable();
      t.decimal('opening_balance', 18, 2).notNullable();
      t.decimal('closing_balance', 18, 2).notNullable();
      t.date('statement_date');
      t.integer('line_count').notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
      t.unique(['org_id', 'iban', 'statement_id']);
      t.index(['org_id', 'iban', 'id']);
    });
    await trx.schema.withSchema(schema).createTable('bank_lines', (t) => {
      t.increments('id');
      t.integer('org_id').notNullable();
      t.integer('statement_id').notNullable().references('id').inTable(`${schema}.bank_statements`);
      t.string('iban', 40).notNullable();
      t.string('natural_key', 200).notNullable();
      t.decimal('amount', 18, 2).notNullable();
      t.string('currency', 3).notNullable();
      t.date('booking_date').notNullable();
      t.date('value_date');
      t.string('bank_reference', 200);
      t.string('end_to_end_id', 200);
      t.string('structured_reference', 200);
      t.text('remittance_text');
      t.string('counterparty_name', 200);
      t.string('counterparty_iban', 40);
      t.string('status', 10).notNullable().defaultTo('unmatched');
      t.unique(['org_id', 'iban', 'natural_key']);
      t.index(['org_id', 'status', 'id']);
      t.index(['statement_id']);
    });
    await trx.raw(
      `alter table ??.bank_lines add constraint bank_lines_status_check check (status in ('unmatched', 'suggested', 'reconciled', 'ignored'))`,
      [schema],
    );
    await trx.schema.withSchema(schema).createTable('bank_reconciliations', (t) => {
      t.increments('id');
      t.integer('org_id').notNullable();
      t.integer('line_id').notNullable().references('id').inTable(`${schema}.bank_lines`);
      t.integer('payment_id').references('id').inTable(`${schema}.payments`);
      /** Whether the payment was made by this reconciliation (voided on unreconcile) or only linked. */
      t.boolean('made_payment').notNullable().defaultTo(false);
      t.integer('journal_entry_id').references('id').inTable(`${schema}.journal_entries`);
      t.string('status', 10).notNullable().defaultTo('active');
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
      t.timestamp('undone_at', { useTz: true });
    });
    await trx.raw(`create unique index bank_reconciliations_line_active on ??.bank_reconciliations (line_id) where status = 'active'`, [
      schema,
    ]);
    await trx.raw(
      `create unique index bank_reconciliations_payment_active on ??.bank_reconciliations (payment_id) where status = 'active'`,
      [schema],
    );
    await trx.schema.withSchema(schema).createTable('bank_rules', (t) => {
      t.increments('id');
      t.integer('org_id').notNullable();
      t.string('name', 100).notNullable();
      t.string('match_text', 200);
      t.string('match_iban', 40);
      t.integer('partner_id');
      t.string('account', 100);
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
      t.index(['org_id']);
    });
  },
};
