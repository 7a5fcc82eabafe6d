import type { Migration } from '@bo/runtime';

export const migration: Migration = {
  // Reminders (docs/dunning.md): the organization's levels and interest rate, and each letter sent
  // under its natural key (organization, invoice, level), so a repeated run, or two at once, stores
  // a letter once; only the run whose insert took it records its event.
  name: '047_dunning',
  async up(trx, schema) {
    await trx.schema.withSchema(schema).createTable('dunning_levels', (t) => {
      t.integer('org_id').notNullable();
      t.integer('level').notNullable();
      t.integer('days_after_due').notNullable();
      t.decimal('fee', 18, 4).notNullable();
      t.boolean('interest').notNullable();
      t.text('text').notNullable();
      t.primary(['org_id', 'level']);
    });
    await trx.schema.withSchema(schema).createTable('dunning_settings', (t) => {
      t.integer('org_id').primary();
      t.decimal('reference_rate', 9, 4);
      t.decimal('points', 9, 4).notNullable().defaultTo(8);
    });
    await trx.schema.withSchema(schema).createTable('dunning_letters', (t) => {
      t.increments('id');
      t.integer('org_id').notNullable();
      t.integer('invoice_id').notNullable().references('id').inTable(`${schema}.invoices`);
      t.integer('partner_id').notNullable();
      t.integer('level').notNullable();
      t.date('as_of').notNullable();
      t.date('due_date').notNullable();
      t.string('currency', 3).notNullable();
      t.decimal('due_amount', 18, 4).notNullable();
      t.integer('days_overdue').notNullable();
      t.decimal('fee', 18, 4).notNullable();
      t.decimal('interest_rate', 9, 4);
      t.decimal('interest', 18, 4).notNullable();
      t.decimal('total', 18, 4).notNullable();
      t.text('text').notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
      t.unique(['org_id', 'invoice_id', 'level']);
      t.index(['org_id', 'partner_id', 'id']);
    });
  },
};
