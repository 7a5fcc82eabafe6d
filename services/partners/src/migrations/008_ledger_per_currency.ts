import { withLockTimeout, type Migration } from '@bo/runtime';

export const migration: Migration = {
  // Balances per currency (docs/partners.md "Currencies"): each ledger row and commitment keeps the
  // currency of its document or money, and partner_balances sums them per partner and currency, with
  // what its documents came to in the accounting currency (the rate they were posted at). Rows
  // posted before events named a currency are taken to be in the partner's currency, else the
  // organization's default ('' when neither is known): documents took those as they were made. Their
  // rate was never told, so their documents count in no rate (only ones posted from now on do).
  name: '008_ledger_per_currency',
  async up(trx, schema) {
    await withLockTimeout(trx, async () => {
      await trx.raw('alter table ??.partner_transactions add column currency varchar(3), add column accounting_amount numeric', [schema]);
      await trx.raw('alter table ??.commitments add column currency varchar(3)', [schema]);
      for (const table of ['partner_transactions', 'commitments'])
        await trx.raw(
          `update ??.?? t set currency = coalesce(p.currency, o.default_currency)
               from ??.partners p left join ??.organization_profiles o on o.org_id = p.org_id
              where p.org_id = t.org_id and p.id = t.partner_id`,
          [schema, table, schema, schema],
        );
    });
    await trx.schema.withSchema(schema).createTable('partner_balances', (t) => {
      t.integer('org_id').notNullable();
      t.integer('partner_id').notNullable();
      t.string('currency', 3).notNullable();
      t.decimal('balance').notNullable().defaultTo(0);
      t.decimal('receivable').notNullable().defaultTo(0);
      t.decimal('committed').notNullable().defaultTo(0);
      // Sum of the totals of the documents posted with their accounting-currency worth, and that worth.
      t.decimal('documents_total').notNullable().defaultTo(0);
      t.decimal('documents_accounting').notNullable().defaultTo(0);
      t.primary(['org_id', 'partner_id', 'currency']);
    });
    // knex's decimal() without precision is numeric(8, 2) on PostgreSQL: amounts are unbounded numerics here.
    await trx.raw(
      `alter table ??.partner_balances alter column balance type numeric, alter column receivable type numeric,
           alter column committed type numeric, alter column documents_total type numeric, alter column documents_accounting type numeric`,
      [schema],
    );
    await trx.raw(
      `insert into ??.partner_balances (org_id, partner_id, currency, balance, receivable, committed)
         select org_id, partner_id, currency, sum(balance), sum(receivable), sum(committed) from (
           select org_id, partner_id, coalesce(currency, '') as currency, balance_effect as balance, receivable_effect as receivable, 0 as committed
             from ??.partner_transactions
           union all
           select org_id, partner_id, coalesce(currency, ''), 0, 0, amount from ??.commitments where status = 'open' and partner_id is not null
         ) m group by org_id, partner_id, currency`,
      [schema, schema, schema],
    );
  },
};
