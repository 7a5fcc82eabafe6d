import type { Migration } from '@bo/runtime';
import { addOrganizationCurrency, createDocumentLogos } from '@bo/billing';

export const migration: Migration = {
  // Issued documents never change (docs/invoicing.md, "Issued invoices are frozen"). Every invoice
  // stores its currency; rows made before take their partner's as this service's read model has it
  // now (what a render showed until today). Those whose partner has none stay null: the
  // organization's default was never kept here, and validation or their first render as an issued
  // invoice sets it. `issued_parties` holds the seller, buyer, payment account and currency frozen
  // at validation; an invoice issued before it freezes them at its first render. Logos are kept
  // once per content in `document_logos`. The read model of the organization keeps its default
  // currency from the next profile event on.
  name: '010_issued_snapshot_and_currency',
  async up(trx, schema) {
    await trx.raw('alter table ??.invoices add column currency varchar(3), add column issued_parties jsonb', [schema]);
    await trx.raw(
      `update ??.invoices i set currency = p.currency from ??.partner_directory p
          where p.org_id = i.org_id and p.id = i.partner_id and p.currency is not null`,
      [schema, schema],
    );
    await createDocumentLogos(trx, schema);
    await addOrganizationCurrency(trx, schema);
  },
};
