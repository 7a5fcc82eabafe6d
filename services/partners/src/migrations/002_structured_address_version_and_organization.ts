import type { Migration } from '@bo/runtime';

export const migration: Migration = {
  name: '002_structured_address_version_and_organization',
  async up(trx, schema) {
    // Structured address beside the free-text `address`, and a version counting every change of
    // the record, so the read models of other services keep the newest whatever the event order.
    await trx.schema.withSchema(schema).alterTable('partners', (t) => {
      t.string('address_line1', 200);
      t.string('address_line2', 200);
      t.string('city', 100);
      t.string('postal_code', 20);
      t.string('region', 100);
      t.string('country', 2);
      t.integer('version').notNullable().defaultTo(1);
    });
    // One profile per organization (docs/architecture.md: why partners owns it).
    await trx.schema.withSchema(schema).createTable('organization_profiles', (t) => {
      t.integer('org_id').primary();
      t.integer('version').notNullable();
      t.string('legal_name', 200);
      t.string('trading_name', 200);
      t.string('address_line1', 200);
      t.string('address_line2', 200);
      t.string('city', 100);
      t.string('postal_code', 20);
      t.string('country', 2);
      t.string('vat_id', 50);
      t.string('company_id', 50);
      t.string('email', 254);
      t.string('phone', 50);
      t.string('iban', 34);
      t.string('bic', 11);
      t.string('default_currency', 3);
      t.string('time_zone', 64);
      t.binary('logo_png');
      t.string('logo_sha256', 64);
      t.string('updated_by', 64);
      t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
    });
  },
};
