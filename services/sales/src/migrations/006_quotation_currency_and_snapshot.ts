import type { Migration } from '@bo/runtime';
import { addOrganizationCurrency, createDocumentLogos } from '@bo/billing';

export const migration: Migration = {
  // Issued quotations never change (docs/sales.md, "Sent quotations are frozen"). Every quotation
  // stores its currency; rows made before take their partner's as the read model has it now (what
  // a render showed until today), those whose partner has none stay null (the organization's
  // default was never kept here) and take the organization's when they are sent or first
  // rendered. `issued_parties` holds the seller, buyer, payment account and currency frozen when
  // the quotation is sent; logos are kept once per content in `document_logos`. The read model of
  // the organization keeps its default currency from the next profile event on.
  name: '006_quotation_currency_and_snapshot',
  async up(trx, schema) {
    await trx.raw('alter table ??.quotations add column currency varchar(3), add column issued_parties jsonb', [schema]);
    await trx.raw(
      `update ??.quotations q set currency = p.currency from ??.partner_directory p
        where p.org_id = q.org_id and p.id = q.partner_id and p.currency is not null`,
      [schema, schema],
    );
    await createDocumentLogos(trx, schema);
    await addOrganizationCurrency(trx, schema);
  },
};
