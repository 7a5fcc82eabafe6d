import type { Migration } from '@bo/runtime';

export const migration: Migration = {
  // Documents stored without a currency (from before currencies) get the organization's accounting
  // currency (its `default_currency` as organization_settings knows it), which is what the journal
  // posted them in: invoices first, then payments (the one currency of the documents they settle,
  // else the organization's), then refunds (their source's). Cash in another currency is refused
  // against them from now on (docs/invoicing.md "Cash application"); an organization with no
  // accounting currency on record keeps its documents without one.
  name: '025_documents_without_currency_take_the_accounting_currency',
  async up(trx, schema) {
    await trx.raw(
      `update ??.invoices i set currency = s.default_currency from ??.organization_settings s
          where i.currency is null and s.org_id = i.org_id and s.default_currency is not null`,
      [schema, schema],
    );
    await trx.raw(
      `update ??.payments p set currency = coalesce(
           (select min(i.currency) from ??.payment_allocations a join ??.invoices i on i.id = a.invoice_id
             where a.payment_id = p.id having count(distinct i.currency) = 1 and count(i.currency) = count(*)),
           s.default_currency)
           from ??.organization_settings s
          where p.currency is null and s.org_id = p.org_id and s.default_currency is not null`,
      [schema, schema, schema, schema],
    );
    await trx.raw(
      `update ??.payment_refunds r set currency = coalesce(
           (select p.currency from ??.payments p where p.id = r.payment_id),
           (select c.currency from ??.invoices c where c.id = r.credit_note_id))
          where r.currency is null`,
      [schema, schema, schema],
    );
  },
};
