import type { Migration } from '@bo/runtime';

export const migration: Migration = {
  // What the partner owes as a customer beside its balance: customer invoices and credit notes to it
  // (and their payments) move it, vendor bills and vendor credits do not, so a `both` partner's
  // vendor side never adds to its credit exposure. Each posted row keeps its part; rows posted
  // before are counted from their type (a payment by its document's type, when that is posted).
  name: '003_exposure_by_receivable',
  async up(trx, schema) {
    await trx.raw('alter table ??.partners add column receivable numeric(18, 2) not null default 0', [schema]);
    await trx.raw('alter table ??.partner_transactions add column receivable_effect numeric(18, 2) not null default 0', [schema]);
    await trx.raw(
      `update ??.partner_transactions t set receivable_effect = t.balance_effect
          where t.type in ('invoice', 'credit_note')
             or (t.source = 'payment' and exists (
                   select 1 from ??.partner_transactions d
                    where d.org_id = t.org_id and d.source = 'invoice' and d.source_id = t.invoice_id and d.type in ('invoice', 'credit_note')))`,
      [schema, schema],
    );
    await trx.raw(
      `update ??.partners p set receivable = s.receivable
           from (select partner_id, sum(receivable_effect) as receivable from ??.partner_transactions group by partner_id) s
          where p.id = s.partner_id`,
      [schema, schema],
    );
  },
};
