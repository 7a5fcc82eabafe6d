import type { Migration } from '@bo/runtime';

export const migration: Migration = {
  // Cash application (docs/invoicing.md, "Cash application"): a payment is a record of its own, for a
  // partner and a direction, allocated to documents by `payment_allocations` (a validated credit
  // note's credit too); its unallocated rest is the partner's credit until allocated or refunded
  // (`payment_refunds`). Each payment registered before becomes what register_payment now makes: a
  // payment of its document's partner with one allocation. Journal entries of a payment, a refund
  // or a void need not name one invoice. An invoice may be written off.
  name: '015_payments_and_allocations',
  async up(trx, schema) {
    await trx.raw(
      `alter table ??.payments alter column invoice_id drop not null,
           add column partner_id integer, add column direction varchar(3), add column currency varchar(3),
           add column method varchar(50), add column reference varchar(200),
           add column status varchar(10) not null default 'posted',
           add column allocated numeric(18, 2) not null default 0, add column refunded numeric(18, 2) not null default 0,
           add column operation_key varchar(200), add column void_journal_entry_id integer references ??.journal_entries (id),
           add column void_reason text, add column voided_at timestamptz, add column void_date date`,
      [schema, schema],
    );
    await trx.raw(
      `update ??.payments p set partner_id = i.partner_id, currency = i.currency, allocated = p.amount,
           direction = case when i.invoicetype in ('invoiceout', 'creditin') then 'in' else 'out' end
           from ??.invoices i where i.id = p.invoice_id`,
      [schema, schema],
    );
    await trx.raw(
      `alter table ??.payments alter column partner_id set not null, alter column direction set not null,
           add constraint payments_direction_check check (direction in ('in', 'out')),
           add constraint payments_status_check check (status in ('posted', 'voided')),
           add constraint payments_amounts_check check (amount > 0 and allocated >= 0 and refunded >= 0 and allocated + refunded <= amount)`,
      [schema],
    );
    await trx.raw('create unique index payments_org_operation on ??.payments (org_id, operation_key) where operation_key is not null', [
      schema,
    ]);
    await trx.raw('create index payments_org_partner on ??.payments (org_id, partner_id, id desc)', [schema]);

    await trx.schema.withSchema(schema).createTable('payment_allocations', (t) => {
      t.increments('id');
      t.integer('org_id').notNullable();
      t.integer('payment_id').references('id').inTable(`${schema}.payments`);
      t.integer('credit_note_id').references('id').inTable(`${schema}.invoices`);
      t.integer('invoice_id').notNullable().references('id').inTable(`${schema}.invoices`);
      t.decimal('amount', 18, 2).notNullable();
      t.date('allocation_date').notNullable();
      t.string('status', 10).notNullable().defaultTo('active');
      t.integer('journal_entry_id').references('id').inTable(`${schema}.journal_entries`);
      // The natural key: the operation that made it and its place in the request.
      t.string('operation_key', 200);
      t.integer('seq').notNullable().defaultTo(0);
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
      t.timestamp('voided_at', { useTz: true });
      t.index(['payment_id']);
      t.index(['credit_note_id']);
      t.index(['invoice_id']);
    });
    await trx.raw(
      `alter table ??.payment_allocations
           add constraint payment_allocations_source_check check ((payment_id is null) <> (credit_note_id is null)),
           add constraint payment_allocations_amount_check check (amount > 0),
           add constraint payment_allocations_status_check check (status in ('active', 'voided'))`,
      [schema],
    );
    await trx.raw(
      'create unique index payment_allocations_org_operation on ??.payment_allocations (org_id, operation_key, seq) where operation_key is not null',
      [schema],
    );
    await trx.raw(
      `insert into ??.payment_allocations (org_id, payment_id, invoice_id, amount, allocation_date, created_at)
         select org_id, id, invoice_id, amount, payment_date, created_at from ??.payments where invoice_id is not null`,
      [schema, schema],
    );

    await trx.schema.withSchema(schema).createTable('payment_refunds', (t) => {
      t.increments('id');
      t.integer('org_id').notNullable();
      t.integer('partner_id').notNullable();
      t.integer('payment_id').references('id').inTable(`${schema}.payments`);
      t.integer('credit_note_id').references('id').inTable(`${schema}.invoices`);
      t.string('direction', 3).notNullable();
      t.decimal('amount', 18, 2).notNullable();
      t.string('currency', 3);
      t.date('refund_date').notNullable();
      t.string('method', 50);
      t.string('reference', 200);
      t.string('journal', 100).notNullable();
      t.integer('journal_entry_id').notNullable().references('id').inTable(`${schema}.journal_entries`);
      t.string('operation_key', 200);
      t.string('created_by', 64);
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
      t.index(['payment_id']);
      t.index(['credit_note_id']);
    });
    await trx.raw(
      `alter table ??.payment_refunds
           add constraint payment_refunds_source_check check ((payment_id is null) <> (credit_note_id is null)),
           add constraint payment_refunds_amount_check check (amount > 0)`,
      [schema],
    );
    await trx.raw(
      'create unique index payment_refunds_org_operation on ??.payment_refunds (org_id, operation_key) where operation_key is not null',
      [schema],
    );

    await trx.raw(
      `alter table ??.journal_entries alter column invoice_id drop not null,
           add column payment_id integer references ??.payments (id)`,
      [schema, schema],
    );
    await trx.raw('create index journal_entries_payment on ??.journal_entries (payment_id) where payment_id is not null', [schema]);

    await trx.raw(
      `alter table ??.invoices add column written_off_amount numeric(18, 2) not null default 0,
           add column written_off_at timestamptz, add column write_off_reason text, add column write_off_journal_entry_id integer,
           drop constraint invoices_status_check, drop constraint invoices_paid_check,
           add constraint invoices_status_check check (invoicestatus in ('draft','proforma','open','paid','cancelled','written_off')),
           add constraint invoices_paid_check check (amount_paid >= 0 and written_off_amount >= 0 and amount_paid + written_off_amount <= invoicetotal)`,
      [schema],
    );
  },
};
