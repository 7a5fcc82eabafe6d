import type { Migration } from '@bo/runtime';

export const migration: Migration = {
  // An issued invoice states its VAT in the accounting currency too (BT-6, BT-111, docs/invoicing.md
  // "Issued invoices never change"): the organization's currency is frozen with its parties, so a
  // later change of the organization's currency changes none of its renders. Invoices that froze
  // their parties before take the organization's currency as this service knows it now; those that
  // froze none freeze it with their parties at their first render.
  name: '019_issued_accounting_currency',
  async up(trx, schema) {
    await trx.raw('alter table ??.invoices add column accounting_currency varchar(3)', [schema]);
    await trx.raw(
      `update ??.invoices i set accounting_currency = s.default_currency from ??.organization_settings s
          where i.issued_parties is not null and s.org_id = i.org_id`,
      [schema, schema],
    );
  },
};
