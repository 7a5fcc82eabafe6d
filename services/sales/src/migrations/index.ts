import {
  addOrganizationCurrency,
  addDocumentTaxColumns,
  createDocumentLogos,
  createPartnerDeleteFences,
  createPartnerFenceCheck,
  organizationSettingsMigration,
  type Migration,
} from '@bo/runtime';

export const salesMigrations: Migration[] = [
  {
    name: '001_quotations',
    async up(trx, schema) {
      // `status` holds what an action set; `expired` is derived from valid_until at read time
      // (see quotation/quotation-status.ts), so it is never stored and never stale.
      await trx.schema.withSchema(schema).createTable('quotations', (t) => {
        t.increments('id');
        t.integer('org_id').notNullable();
        t.string('quotation_number', 50).notNullable();
        t.string('quotation_type', 16).notNullable();
        t.string('status', 16).notNullable();
        t.integer('partner_id').notNullable();
        t.timestamp('quotation_date', { useTz: true }).notNullable();
        t.date('valid_until').notNullable();
        t.text('comments');
        t.string('quotation_reference', 200);
        t.decimal('subtotal', 20, 2).notNullable().defaultTo(0);
        t.decimal('tax_amount', 20, 2).notNullable().defaultTo(0);
        t.decimal('discount_total', 20, 2).notNullable().defaultTo(0);
        t.decimal('total', 20, 2).notNullable().defaultTo(0);
        t.integer('line_count').notNullable().defaultTo(0);
        t.integer('invoice_id');
        t.string('invoicenumber', 64);
        t.string('invoicetype', 16);
        t.timestamp('converted_at', { useTz: true });
        // The operation key of the attempt that started the conversion (see migration 003).
        t.string('convert_key', 255);
        t.timestamp('cancelled_at', { useTz: true });
        t.string('created_by', 64);
        t.string('updated_by', 64);
        t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
        t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
        t.unique(['org_id', 'quotation_number'], { indexName: 'quotations_org_number_unique' });
      });
      await trx.raw(
        `alter table ??.quotations add constraint quotations_status_check check (status in ('draft','sent','accepted','converted','cancelled'))`,
        [schema],
      );
      await trx.raw(
        `alter table ??.quotations add constraint quotations_type_check check (quotation_type in ('quotation','proforma','estimate'))`,
        [schema],
      );
      await trx.raw('create index quotations_org_newest on ??.quotations (org_id, id desc)', [schema]);

      await trx.schema.withSchema(schema).createTable('quotation_lines', (t) => {
        t.increments('id');
        t.integer('org_id').notNullable();
        t.integer('quotation_id').notNullable().references('id').inTable(`${schema}.quotations`);
        t.string('product_id', 64).notNullable();
        t.string('product_name', 200);
        t.text('description');
        t.decimal('quantity', 18, 4).notNullable();
        t.decimal('price', 18, 4).notNullable();
        t.decimal('discount', 7, 4).notNullable().defaultTo(0);
        t.decimal('tax_rate', 7, 4).notNullable();
        t.boolean('tax_included').notNullable();
        t.decimal('subtotal', 20, 2).notNullable();
        t.decimal('tax_amount', 20, 2).notNullable();
        t.decimal('total', 20, 2).notNullable();
        t.decimal('discount_amount', 20, 2).notNullable();
        t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
        t.index(['quotation_id', 'id']);
      });

      // Read model of partners fed by partners.partner.* events (names for lists and search, currency).
      await trx.schema.withSchema(schema).createTable('partner_directory', (t) => {
        t.integer('org_id').notNullable();
        t.integer('id').notNullable();
        t.string('partnername', 200).notNullable();
        t.string('display_name', 200).notNullable();
        t.string('currency', 3);
        t.boolean('deleted').notNullable().defaultTo(false);
        t.timestamp('source_updated_at', { useTz: true }).notNullable();
        t.primary(['org_id', 'id']);
      });
    },
  },
  {
    name: '002_conversion_attempted',
    async up(trx, schema) {
      // Set when a conversion starts (first by a timeout alone, see 003): the invoice may exist with
      // the lines of that moment, so the quotation takes no more changes until the conversion ends.
      await trx.schema.withSchema(schema).alterTable('quotations', (t) => {
        t.timestamp('conversion_attempted_at', { useTz: true });
      });
    },
  },
  {
    name: '003_conversion_in_steps',
    async up(trx, schema) {
      // A conversion commits in two transactions around the call to invoicing (none is open during
      // the call). Between them the quotation is frozen (conversion_attempted_at set, status still
      // open) and these columns let any later attempt, or the recovery task, finish the same one.
      await trx.schema.withSchema(schema).alterTable('quotations', (t) => {
        // What the attempt that froze it asked for, so a resumption makes the same invoice.
        t.string('convert_invoicetype', 16);
        t.string('convert_user', 64);
        // Counts attempts; an attempt changes the row after the call only if no other attempt began since.
        t.integer('conversion_attempts').notNullable().defaultTo(0);
        // An attempt in flight holds the conversion until then; set to the end time when it ends.
        t.timestamp('conversion_lease_until', { useTz: true });
        // The invoice as the conversion answered it, so that answer can be given again without invoicing.
        t.jsonb('converted_invoice');
      });
      // convert_key was the converting request's Idempotency-Key; it now holds the operation key of
      // the attempt that started the conversion (the same value when the client sent a key).
      await trx.raw(
        `update ??.quotations set converted_invoice = jsonb_build_object(
           'id', invoice_id, 'orgid', org_id, 'invoicenumber', invoicenumber, 'invoicetype', invoicetype, 'partner', partner_id::text,
           'invoicestatus', 'draft', 'subtotal', subtotal, 'tax_amount', tax_amount, 'invoicetotal', total)
         where status = 'converted' and invoice_id is not null`,
        [schema],
      );
      // The recovery task's search: the few quotations frozen and not converted.
      await trx.raw(
        `create index quotations_conversion_unfinished on ??.quotations (conversion_lease_until) where conversion_attempted_at is not null and status in ('draft','sent','accepted')`,
        [schema],
      );
    },
  },
  {
    // Lines know the catalog: each keeps what it named (variant, stock location) and a snapshot of the
    // product (SKU, unit of measure) taken when the line was made, so catalog edits never rewrite it.
    name: '004_line_catalog_snapshot',
    async up(trx, schema) {
      await trx.schema.withSchema(schema).alterTable('quotation_lines', (t) => {
        t.string('variant_id', 64);
        t.string('location_id', 64);
        t.string('sku', 100);
        t.string('uom', 50);
      });
    },
  },
  {
    // The shared partner read model (runtime read-models/partner-directory.ts): the newest record by
    // the partner's version instead of a timestamp cut to the second, its type for the role rules,
    // and the deletion time. Rows kept before have no type: the first use asks partners again.
    name: '005_partner_directory_versions',
    async up(trx, schema) {
      await trx.schema.withSchema(schema).alterTable('partner_directory', (t) => {
        t.string('partner_type', 16);
        t.integer('version').notNullable().defaultTo(0);
        t.timestamp('deleted_at', { useTz: true });
      });
      await trx.raw('update ??.partner_directory set deleted_at = now() where deleted', [schema]);
      await trx.schema.withSchema(schema).alterTable('partner_directory', (t) => {
        t.dropColumn('deleted');
        t.dropColumn('source_updated_at');
      });
    },
  },
  // The organization's time zone, from partners.organization.updated (quotation expiry, dates).
  organizationSettingsMigration('006_organization_settings'),
  {
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
  },
  {
    // A partner being deleted gets no new quotation (runtime read-models/partner-delete-fence.ts).
    name: '007_exposure_by_receivable',
    async up(trx, schema) {
      await createPartnerDeleteFences(trx, schema);
    },
  },
  {
    // The fence check a create makes in one round trip rather than two (runtime read-models/partner-delete-fence.ts).
    name: '008_partner_fence_check',
    async up(trx, schema) {
      await createPartnerFenceCheck(trx, schema);
    },
  },
  {
    // Quotations carry their taxes (docs/invoicing.md, "Taxes and rounding"), as invoices do (invoicing 013).
    name: '009_document_taxes',
    async up(trx, schema) {
      await addDocumentTaxColumns(trx, schema, {
        documents: 'quotations',
        lines: 'quotation_lines',
        documentKey: 'quotation_id',
        total: 'total',
        moreAmounts: { line: 'discount_amount', document: 'discount_total' },
        exchangeRateScale: 10,
      });
    },
  },
  {
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
  },
];
