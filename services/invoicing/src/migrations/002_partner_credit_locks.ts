import type { Migration } from '@bo/runtime';

export const migration: Migration = {
  name: '002_partner_credit_locks',
  async up(trx, schema) {
    // One row per partner that has had a sale credit-checked: validations lock it, so two sales to
    // one partner are checked one after the other and the second sees the first.
    await trx.schema.withSchema(schema).createTable('partner_credit_locks', (t) => {
      t.integer('org_id').notNullable();
      t.integer('partner_id').notNullable();
      t.primary(['org_id', 'partner_id']);
    });
    await trx.raw(`create index invoices_partner_open on ??.invoices (org_id, partner_id) where invoicestatus = 'open'`, [schema]);
  },
};
