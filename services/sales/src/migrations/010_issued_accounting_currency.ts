import type { Migration } from '@bo/runtime';

export const migration: Migration = {
  // A sent quotation states its VAT in the accounting currency too (BT-6, BT-111 on its PDF), frozen
  // with its parties (docs/sales.md, "Sent quotations never change"). Quotations that froze their
  // parties before take the organization's currency as this service knows it now; those that froze
  // none freeze it with their parties at their first render.
  name: '010_issued_accounting_currency',
  async up(trx, schema) {
    await trx.raw('alter table ??.quotations add column accounting_currency varchar(3)', [schema]);
    await trx.raw(
      `update ??.quotations q set accounting_currency = s.default_currency from ??.organization_settings s
        where q.issued_parties is not null and s.org_id = q.org_id`,
      [schema, schema],
    );
  },
};
