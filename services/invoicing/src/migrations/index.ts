import type { invoicing } from '@bo/contracts';
import {
  addOrganizationCurrency,
  addDocumentTaxColumns,
  addOrganizationLockDate,
  createDocumentLogos,
  createPartnerDeleteFences,
  createPartnerFenceCheck,
  createOrganizationSettingsHold,
  organizationSettingsMigration,
  type Migration,
} from '@bo/runtime';
import { runDate } from '../domain/recurrence';

export const invoicingMigrations: Migration[] = [
  {
    name: '001_invoicing',
    async up(trx, schema) {
      await trx.schema.withSchema(schema).createTable('invoices', (t) => {
        t.increments('id');
        t.integer('org_id').notNullable();
        t.string('invoicenumber', 50).notNullable();
        t.string('invoicetype', 16).notNullable();
        t.integer('partner_id').notNullable();
        // `overdue` is never stored: it is computed from invoicedue at read time.
        t.string('invoicestatus', 16).notNullable();
        t.timestamp('invoicedatetime', { useTz: true }).notNullable();
        t.date('invoicedue');
        t.text('comments');
        t.string('invoicereference', 200);
        t.text('invoiceterms');
        t.decimal('subtotal', 18, 2).notNullable().defaultTo(0);
        t.decimal('tax_amount', 18, 2).notNullable().defaultTo(0);
        t.decimal('invoicetotal', 18, 2).notNullable().defaultTo(0);
        t.decimal('amount_paid', 18, 2).notNullable().defaultTo(0);
        t.string('sourceid', 64);
        t.string('sourcenumber', 64);
        t.string('sourcetype', 64);
        t.string('chartofaccounts', 100);
        t.string('invoicejournal', 100);
        t.string('tradeaccount', 100);
        t.string('created_by', 64);
        // Recurring contract (only on a parent) and the link of a child to its parent and run date.
        t.boolean('recurring_enabled').notNullable().defaultTo(false);
        t.string('recurring_frequency', 16);
        t.date('recurring_start_date');
        t.date('recurring_next_run_date');
        t.integer('recurring_next_index').notNullable().defaultTo(0);
        t.integer('recurring_occurrences').notNullable().defaultTo(0);
        t.integer('recurring_generated').notNullable().defaultTo(0);
        t.string('recurring_status', 16);
        t.text('recurring_cancellation_reason');
        t.integer('parent_id').references('id').inTable(`${schema}.invoices`);
        t.date('run_date');
        t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
        t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
        t.timestamp('validated_at', { useTz: true });
        t.timestamp('cancelled_at', { useTz: true });
        t.timestamp('paid_at', { useTz: true });
      });
      await trx.raw(
        `alter table ??.invoices add constraint invoices_status_check check (invoicestatus in ('draft','proforma','open','paid','cancelled')),
           add constraint invoices_type_check check (invoicetype in ('invoiceout','creditout','invoicein','creditin')),
           add constraint invoices_paid_check check (amount_paid >= 0 and amount_paid <= invoicetotal)`,
        [schema],
      );
      await trx.raw('create unique index invoices_org_number on ??.invoices (org_id, invoicenumber)', [schema]);
      // A source document (a quotation) becomes at most one invoice.
      await trx.raw('create unique index invoices_org_source on ??.invoices (org_id, sourcetype, sourceid) where sourceid is not null', [
        schema,
      ]);
      // At most one child per contract and run date, whichever scheduler instance gets there.
      await trx.raw('create unique index invoices_parent_run on ??.invoices (parent_id, run_date) where parent_id is not null', [schema]);
      await trx.raw('create index invoices_org_date on ??.invoices (org_id, invoicedatetime desc, id desc)', [schema]);
      await trx.raw(
        `create index invoices_recurring_due on ??.invoices (recurring_next_run_date) where recurring_enabled and recurring_status = 'active'`,
        [schema],
      );

      await trx.schema.withSchema(schema).createTable('invoice_lines', (t) => {
        t.increments('id');
        t.integer('org_id').notNullable();
        t.integer('invoice_id').notNullable().references('id').inTable(`${schema}.invoices`);
        t.string('product_id', 64).notNullable();
        t.string('product_name', 200);
        t.text('description');
        t.decimal('quantity', 18, 4).notNullable();
        t.decimal('price', 18, 4).notNullable();
        t.decimal('discount', 9, 4).notNullable().defaultTo(0);
        t.decimal('tax_rate', 9, 4).notNullable();
        t.boolean('tax_included').notNullable();
        t.decimal('subtotal', 18, 2).notNullable();
        t.decimal('tax_amount', 18, 2).notNullable();
        t.decimal('total', 18, 2).notNullable();
        t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
        t.index(['invoice_id', 'id']);
      });

      await trx.schema.withSchema(schema).createTable('journal_entries', (t) => {
        t.increments('id');
        t.integer('org_id').notNullable();
        t.integer('invoice_id').notNullable().references('id').inTable(`${schema}.invoices`);
        t.string('kind', 10).notNullable(); // 'invoice' or 'payment'
        t.string('journalname', 100).notNullable();
        t.date('journaldate').notNullable();
        t.decimal('amount', 18, 2).notNullable();
        t.string('reference', 64).notNullable();
        t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
        t.index(['invoice_id', 'kind']);
      });
      await trx.schema.withSchema(schema).createTable('journal_lines', (t) => {
        t.increments('id');
        t.integer('entry_id').notNullable().references('id').inTable(`${schema}.journal_entries`);
        t.string('account', 100).notNullable();
        t.string('label', 100).notNullable();
        t.decimal('debit', 18, 2).notNullable();
        t.decimal('credit', 18, 2).notNullable();
        t.index(['entry_id']);
      });

      await trx.schema.withSchema(schema).createTable('payments', (t) => {
        t.increments('id');
        t.integer('org_id').notNullable();
        t.integer('invoice_id').notNullable().references('id').inTable(`${schema}.invoices`);
        t.decimal('amount', 18, 2).notNullable();
        t.date('payment_date').notNullable();
        t.string('journal', 100).notNullable();
        t.integer('journal_entry_id').notNullable().references('id').inTable(`${schema}.journal_entries`);
        t.string('created_by', 64);
        t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
        t.index(['invoice_id']);
      });

      // Read model of partners, fed by partner events (and by the partners RPC when an event has not arrived yet).
      await trx.schema.withSchema(schema).createTable('partner_directory', (t) => {
        t.integer('org_id').notNullable();
        t.integer('id').notNullable();
        t.string('partnername', 200).notNullable();
        t.string('display_name', 200).notNullable();
        t.timestamp('source_updated_at', { useTz: true }).notNullable();
        t.timestamp('deleted_at', { useTz: true });
        t.primary(['org_id', 'id']);
      });
    },
  },
  {
    name: '002_partner_credit_locks',
    async up(trx, schema) {
      // One row per partner that has had a sale credit-checked: validations lock it, so two sales to
      // one partner are checked one after the other and the second sees the first.
      await trx.schema.withSchema(schema).createTable('partner_credit_locks', (t) => {
        t.integer('org_id').notNullable();
        t.integer('partner_id').notNullable();
        t.primary(['org_id', 'partner_id']);
      });
      await trx.raw(`create index invoices_partner_open on ??.invoices (org_id, partner_id) where invoicestatus = 'open'`, [schema]);
    },
  },
  {
    // Lines know the catalog: each keeps what it named (variant, stock location) and a snapshot of the
    // product (SKU, unit of measure) taken when the line was made, so catalog edits never rewrite it.
    name: '003_line_catalog_snapshot',
    async up(trx, schema) {
      await trx.schema.withSchema(schema).alterTable('invoice_lines', (t) => {
        t.string('variant_id', 64);
        t.string('location_id', 64);
        t.string('sku', 100);
        t.string('uom', 50);
      });
    },
  },
  {
    // The shared partner read model (runtime read-models/partner-directory.ts): the newest record by
    // the partner's version instead of a timestamp cut to the second, and its type for the role
    // rules. Rows kept before have no type: the first use asks partners again.
    name: '004_partner_directory_versions',
    async up(trx, schema) {
      await trx.schema.withSchema(schema).alterTable('partner_directory', (t) => {
        t.string('partner_type', 16);
        t.string('currency', 3);
        t.integer('version').notNullable().defaultTo(0);
        t.dropColumn('source_updated_at');
      });
    },
  },
  // The organization's time zone, from partners.organization.updated (overdue, scheduler, dates).
  organizationSettingsMigration('005_organization_settings'),
  {
    // Contracts made before the parent invoice billed the first period had their first child due on
    // start_date (index 0), so that period would be billed twice. Those that made no child yet move to
    // the period after the parent's, dated by the same runDate the code uses (month ends clamped the
    // same way); a paused one keeps its pause and resumes from there.
    name: '006_recurring_first_period',
    async up(trx, schema) {
      const { rows } = await trx.raw<{ rows: Array<{ id: number; frequency: invoicing.RecurringFrequency; start: string }> }>(
        `select id, recurring_frequency as frequency, recurring_start_date::text as start from ??.invoices
          where recurring_enabled and recurring_status in ('active', 'paused') and recurring_generated = 0 and recurring_next_index = 0
            and recurring_frequency is not null and recurring_start_date is not null`,
        [schema],
      );
      for (const row of rows) {
        await trx
          .withSchema(schema)
          .table('invoices')
          .where({ id: row.id })
          .update({ recurring_next_index: 1, recurring_next_run_date: runDate(row.start, row.frequency, 1) });
      }
    },
  },
  {
    // Lines made before lines were checked against the catalog may name any product id, even one of
    // another product: only checked lines move stock when their invoice is validated. Rows present now
    // are unchecked unless they carry a snapshot (made since 003); every line made from now on has
    // been checked (create, add line, conversion and recurring children all ask catalog first).
    name: '007_line_catalog_checked',
    async up(trx, schema) {
      await trx.raw('alter table ??.invoice_lines add column catalog_checked boolean not null default false', [schema]);
      await trx.raw('update ??.invoice_lines set catalog_checked = true where sku is not null or uom is not null', [schema]);
      await trx.raw('alter table ??.invoice_lines alter column catalog_checked set default true', [schema]);
    },
  },
  {
    // The credit check sums a partner's committed drafts (made from converted quotations) under the
    // partner's credit lock, and no index had the partner for them: each validation read every
    // invoice of the table (a parallel sequential scan, 22 ms at 200,000 invoices, with the lock held).
    // Partial, so it holds only the drafts waiting for validation. A plain (not concurrent) build:
    // migrations run in one transaction at start-up, and it blocks writes to invoices while it runs.
    name: '008_invoices_partner_committed',
    async up(trx, schema) {
      await trx.raw(
        `create index invoices_partner_committed on ??.invoices (org_id, partner_id)
           where sourcetype = 'quotation' and invoicestatus in ('draft', 'proforma')`,
        [schema],
      );
    },
  },
  {
    // Document links are the server's own. A conversion (invoice <- quotation) is recorded in
    // converted_from_quotation_id by create_from_source alone, and a credit note's link to the
    // invoice it credits in credits_invoice_id once checked; sourcetype / sourceid / sourcenumber
    // stay the client's free text and link nothing (so their unique index goes: a client's text must
    // neither claim a quotation nor block its conversion). restock says whether a credit note returns
    // its goods to stock.
    //
    // Rows stored before: invoicing's own records cannot tell a conversion from a client that typed
    // `quotation` and an id (both went through the same columns and the same event), so none is kept
    // as a conversion; each is listed in source_link_review for an operator. A credit note's claim is
    // checked against invoicing's own invoices: kept when it holds (same organization and partner,
    // paired types, the credited invoice issued), listed otherwise.
    name: '009_server_made_links_and_partial_credits',
    async up(trx, schema) {
      await trx.raw(
        `alter table ??.invoices add column converted_from_quotation_id integer,
           add column credits_invoice_id integer references ??.invoices (id),
           add column restock boolean not null default true`,
        [schema, schema],
      );
      await trx.raw('drop index ??.invoices_org_source', [schema]);
      // A quotation becomes at most one invoice.
      await trx.raw(
        `create unique index invoices_org_converted_quotation on ??.invoices (org_id, converted_from_quotation_id)
           where converted_from_quotation_id is not null`,
        [schema],
      );
      // The credit notes of an invoice, summed under its lock when one of them is validated.
      await trx.raw('create index invoices_credits_invoice on ??.invoices (credits_invoice_id) where credits_invoice_id is not null', [
        schema,
      ]);
      await trx.schema.withSchema(schema).createTable('source_link_review', (t) => {
        t.integer('invoice_id').primary();
        t.integer('org_id').notNullable();
        t.string('invoicenumber', 50).notNullable();
        t.string('invoicetype', 16).notNullable();
        t.string('sourcetype', 64);
        t.string('sourceid', 64);
        t.string('sourcenumber', 64);
        t.text('reason').notNullable();
        t.timestamp('noted_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
      });
      await trx.raw(
        `update ??.invoices n set credits_invoice_id = i.id
           from ??.invoices i
          where n.invoicetype in ('creditout', 'creditin') and n.sourcetype ~* '^(invoice|invoiceout|invoicein)$'
            and i.id::text = n.sourceid and i.org_id = n.org_id
            and i.partner_id = n.partner_id and i.invoicestatus in ('open', 'paid')
            and i.invoicetype = case n.invoicetype when 'creditout' then 'invoiceout' else 'invoicein' end`,
        [schema, schema],
      );
      await trx.raw(
        `insert into ??.source_link_review (invoice_id, org_id, invoicenumber, invoicetype, sourcetype, sourceid, sourcenumber, reason)
         select id, org_id, invoicenumber, invoicetype, sourcetype, sourceid, sourcenumber,
                case when sourcetype ~* '^\\s*quotation\\s*$'
                     then 'names a quotation: not kept as a conversion (a conversion made before links were the server''s cannot be told from a client''s claim)'
                     else 'names an invoice it cannot credit (unknown, another partner''s, not issued, or of an unpaired type): not kept as the credited invoice'
                end
           from ??.invoices
          where sourceid is not null
            and (sourcetype ~* '^\\s*quotation\\s*$'
                 or (invoicetype in ('creditout', 'creditin') and sourcetype ~* '^(invoice|invoiceout|invoicein)$' and credits_invoice_id is null))`,
        [schema, schema],
      );
    },
  },
  {
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
  },
  {
    // Committed credit counts only what becomes a customer invoice: a quotation converted (by the
    // server: converted_from_quotation_id) to a credit note or a vendor document commits nothing. The
    // credit check's committed sum names the link and the type, so its partial index does too (and the
    // one it replaces, which no statement reads any more, goes).
    name: '011_exposure_by_receivable',
    async up(trx, schema) {
      await trx.raw(
        `create index invoices_partner_committed_out on ??.invoices (org_id, partner_id)
           where converted_from_quotation_id is not null and invoicetype = 'invoiceout' and invoicestatus in ('draft', 'proforma')`,
        [schema],
      );
      await trx.raw('drop index if exists ??.invoices_partner_committed', [schema]);
      // A partner being deleted gets no new invoice (runtime read-models/partner-delete-fence.ts).
      await createPartnerDeleteFences(trx, schema);
    },
  },
  {
    // The fence check a create makes in one round trip rather than two (runtime read-models/partner-delete-fence.ts).
    name: '012_partner_fence_check',
    async up(trx, schema) {
      await createPartnerFenceCheck(trx, schema);
    },
  },
  {
    // Documents carry their taxes (docs/invoicing.md, "Taxes and rounding"), as quotations do (sales 009).
    name: '013_document_taxes',
    async up(trx, schema) {
      await addDocumentTaxColumns(trx, schema, {
        documents: 'invoices',
        lines: 'invoice_lines',
        documentKey: 'invoice_id',
        total: 'invoicetotal',
        exchangeRateScale: 8,
      });
    },
  },
  {
    // The books (docs/invoicing.md, "Exchange rates" and "VAT report").
    //
    // exchange_rates: per organization, currency and local day, the units of the accounting currency
    // one unit of the currency is worth; setting a currency and day again replaces its rate. A rate
    // remembers the accounting currency it was set against, and is only read while that is still the
    // organization's.
    //
    // journal_lines carries what a VAT line posts: its category, rate and the base it was computed on.
    // Amounts are no longer cut to two decimals: the journal is in the accounting currency, which may
    // have three or four (BHD, CLF); a value keeps the scale it was written with (unconstrained
    // numeric changes no stored value or its text).
    //
    // Tax lines posted before (label 'Tax' on a VAT account, one per document): when every line of
    // the document has one rate, they get its category (S above 0, Z at 0, as documents of that time
    // read), that rate and the document's subtotal as base; a document of several rates posted its tax
    // in one lump, which no category or rate describes, so those stay null and keep as base the
    // subtotal of the lines that bore tax. The VAT report shows them in a row of their own
    // (tax_category null).
    name: '014_books_exchange_rates_and_tax_lines',
    async up(trx, schema) {
      await trx.schema.withSchema(schema).createTable('exchange_rates', (t) => {
        t.increments('id');
        t.integer('org_id').notNullable();
        t.string('currency', 3).notNullable();
        t.date('rate_date').notNullable();
        t.decimal('rate', 18, 10).notNullable();
        t.string('accounting_currency', 3).notNullable();
        t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
        t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
      });
      await trx.raw(`alter table ??.exchange_rates add constraint exchange_rates_rate_check check (rate > 0)`, [schema]);
      // The natural key, and the latest-on-or-before read (a backward scan from the date).
      await trx.raw('create unique index exchange_rates_key on ??.exchange_rates (org_id, currency, rate_date)', [schema]);
      // A document keeps the rate it was posted at, the table's included: as precise as the table's.
      await trx.raw('alter table ??.invoices alter column exchange_rate type numeric(18, 10)', [schema]);

      await trx.raw(
        `alter table ??.journal_lines alter column debit type numeric, alter column credit type numeric,
           add column tax_category varchar(2), add column tax_rate numeric(9, 4), add column tax_base numeric`,
        [schema],
      );
      await trx.raw('alter table ??.journal_entries alter column amount type numeric', [schema]);
      // The VAT report reads an organization's invoice entries by date.
      await trx.raw('create index journal_entries_org_kind_date on ??.journal_entries (org_id, kind, journaldate)', [schema]);
      await trx.raw(
        `with document_rates as (
           select invoice_id, count(distinct tax_rate) as rates, min(tax_rate) as rate, round(sum(subtotal), 2) as base,
                  round(coalesce(sum(subtotal) filter (where tax_rate <> 0), 0), 2) as taxed_base
             from ??.invoice_lines group by invoice_id)
         update ??.journal_lines jl
            set tax_category = case when d.rates = 1 then case when d.rate > 0 then 'S' else 'Z' end end,
                tax_rate = case when d.rates = 1 then d.rate end,
                tax_base = case when d.rates = 1 then d.base else d.taxed_base end
           from ??.journal_entries e join document_rates d on d.invoice_id = e.invoice_id
          where jl.entry_id = e.id and e.kind = 'invoice' and jl.label = 'Tax'
            and jl.account in ('2200 Tax Payable', '1400 Tax Receivable')`,
        [schema, schema, schema],
      );
    },
  },
  {
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
  },
  {
    // The lock date and realized exchange differences (docs/invoicing.md "Lock date", "Payments in
    // another currency"). organization_settings keeps the profile's lock_date. A payment keeps the
    // rate it was posted at (null: posted as it is, in the accounting currency or with none on
    // record) and what its amount was worth in the accounting currency, which its credit is used up
    // in proportion to; every payment before was posted as it is, so its amount.
    name: '016_lock_date_and_payment_rates',
    async up(trx, schema) {
      await addOrganizationLockDate(trx, schema);
      await trx.raw('alter table ??.payments add column exchange_rate numeric(18, 10), add column accounting_amount numeric', [schema]);
      await trx.raw('update ??.payments set accounting_amount = amount', [schema]);
      await trx.raw('alter table ??.payments alter column accounting_amount set not null', [schema]);
    },
  },
  {
    // An invoice's `version` (docs/invoicing.md, "Versions"): 1 when it is made, one more for each
    // transaction that changes its row, so a receiver of its events (which carry it) keeps the newest
    // whatever order they arrive in. Counted by the database, so no write path can forget it; once
    // per transaction (the top-level transaction id, savepoints included), so a creation that numbers
    // its invoice after inserting it, or a validation that updates it twice, is one change. Invoices
    // made before count from 1.
    name: '017_invoice_versions',
    async up(trx, schema) {
      await trx.raw(
        `alter table ??.invoices add column version integer not null default 1,
           add column version_xact xid8`,
        [schema],
      );
      await trx.raw(
        `create function ??.invoice_version() returns trigger language plpgsql as $$
         begin
           if tg_op = 'INSERT' then
             new.version := 1;
           elsif old.version_xact is distinct from pg_current_xact_id() then
             new.version := old.version + 1;
           else
             new.version := old.version;
           end if;
           new.version_xact := pg_current_xact_id();
           return new;
         end $$`,
        [schema],
      );
      await trx.raw(
        'create trigger invoices_version before insert or update on ??.invoices for each row execute function ??.invoice_version()',
        [schema, schema],
      );
    },
  },
  {
    // Cash moves in its currency's minor unit (docs/invoicing.md "Cash application"): a BHD invoice
    // of 1.234 is paid, allocated, refunded and written off to the mill, as documents already keep
    // amounts of up to 4 decimals (013). Amounts stored before keep their value.
    name: '018_cash_minor_units',
    async up(trx, schema) {
      // Unbounded, as the documents' amounts and the journal's are: a value keeps the decimals it was
      // written with (at least two: journalAmount), so every amount stored before reads as it did.
      const exact = (...columns: string[]) =>
        columns.map((c) => `alter column ${c} type numeric, alter column ${c} set default 0.00`).join(', ');
      await trx.raw(`alter table ??.invoices ${exact('amount_paid', 'written_off_amount')}`, [schema]);
      await trx.raw(`alter table ??.payments ${exact('allocated', 'refunded')}, alter column amount type numeric`, [schema]);
      await trx.raw('alter table ??.payment_allocations alter column amount type numeric', [schema]);
      await trx.raw('alter table ??.payment_refunds alter column amount type numeric', [schema]);
    },
  },
  {
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
  },
  {
    // A refund keeps the rate its money was paid out at and what that was worth in the accounting
    // currency (docs/invoicing.md "Payments in another currency"), as a payment does: the trade account
    // takes the credit's booked worth, the bank this, the exchange lines the difference. Refunds
    // before were paid out at the credit's worth: their bank line (none: worth 0.00), and no rate.
    name: '020_refund_rates',
    async up(trx, schema) {
      await trx.raw('alter table ??.payment_refunds add column exchange_rate numeric(18, 10), add column accounting_amount numeric', [
        schema,
      ]);
      await trx.raw(
        `update ??.payment_refunds r set accounting_amount = coalesce(
           (select sum(l.debit + l.credit) from ??.journal_lines l where l.entry_id = r.journal_entry_id and l.account = r.journal), 0)`,
        [schema, schema],
      );
      await trx.raw('alter table ??.payment_refunds alter column accounting_amount set not null', [schema]);
    },
  },
  {
    // A posting holds its organization's settings under an advisory lock, not a row lock
    // (organizationSettings with `hold`).
    name: '021_organization_settings_hold',
    up: createOrganizationSettingsHold,
  },
  {
    // 009 kept no earlier `quotation` source as a conversion, since invoicing's own rows cannot tell a
    // conversion from a client's claim. Its casualties: drafts converted before it stopped counting
    // as committed credit, and a conversion pending at the upgrade made a second invoice, the first
    // not being found as the quotation's. The conversion records are sales': a converted quotation
    // names its invoice, and a quotation frozen by a conversion not finished names none yet but was
    // given, before 009, the invoice whose source was `quotation` and its id. Both are read here, once
    // and read-only (the one place a service reads another's schema: a repair of data that only
    // exists split between the two), and those links are restored where the invoice is of the same
    // organization and no other invoice holds the quotation's link; their lines leave
    // source_link_review. A quotation whose pending conversion did make a second invoice keeps that
    // one; the first stays listed, its reason saying so. Without sales' table (another database)
    // nothing changes.
    name: '022_restore_conversion_links',
    async up(trx, schema) {
      const sales = 'sales';
      const { rows } = await trx.raw<{ rows: Array<{ quotations: string | null; frozen: boolean }> }>(
        `select to_regclass(?)::text as quotations,
                exists (select 1 from information_schema.columns where table_schema = ? and table_name = 'quotations'
                          and column_name = 'conversion_attempted_at') as frozen`,
        [`${sales}.quotations`, sales],
      );
      if (!rows[0]?.quotations) return;
      // What each quotation's conversion made, by sales' records: the invoice a converted one names,
      // or, for one frozen by an unfinished conversion, the invoice listed by 009 as naming it.
      const pending = rows[0].frozen
        ? `union all
           select q.org_id, q.id as quotation_id, i.id as invoice_id
             from ??.quotations q
             join ??.source_link_review r on r.org_id = q.org_id and r.sourcetype = 'quotation' and r.sourceid = q.id::text
             join ??.invoices i on i.id = r.invoice_id and i.org_id = q.org_id
            where q.status in ('draft', 'sent', 'accepted') and q.conversion_attempted_at is not null`
        : '';
      await trx.raw(
        `create temporary table conversion_links on commit drop as
           select q.org_id, q.id as quotation_id, i.id as invoice_id
             from ??.quotations q join ??.invoices i on i.id = q.invoice_id and i.org_id = q.org_id
            where q.status = 'converted'
           ${pending}`,
        rows[0].frozen ? [sales, schema, sales, schema, schema] : [sales, schema],
      );
      await trx.raw(
        `update ??.invoices i set converted_from_quotation_id = l.quotation_id
           from conversion_links l
          where i.id = l.invoice_id and i.converted_from_quotation_id is null
            and not exists (select 1 from ??.invoices o where o.org_id = l.org_id and o.converted_from_quotation_id = l.quotation_id)`,
        [schema, schema],
      );
      await trx.raw(
        `delete from ??.source_link_review r using ??.invoices i
          where i.id = r.invoice_id and i.converted_from_quotation_id is not null`,
        [schema, schema],
      );
      await trx.raw(
        `update ??.source_link_review r
            set reason = 'its quotation''s conversion made it, but another invoice (' || o.id || ') was made for the quotation since: the quotation keeps that one'
           from conversion_links l join ??.invoices o on o.org_id = l.org_id and o.converted_from_quotation_id = l.quotation_id
          where r.invoice_id = l.invoice_id and o.id <> l.invoice_id`,
        [schema, schema],
      );
    },
  },
  {
    // A credit note returns to stock at most what its invoice delivered (docs/invoicing.md "Credit
    // notes"): each line keeps what its validation moved in stock (`stocked`; null until validated),
    // so the cap reads it instead of guessing from today's flags. Lines of documents validated before
    // moved what their event carried: the quantity of a line checked against the catalog, unless a
    // credit note returned no goods. A credit note's settlement of the invoice it credits is an
    // allocation marked `settles_credited`, at most one per note (the natural key of that effect).
    name: '023_line_stocked',
    async up(trx, schema) {
      await trx.raw('alter table ??.invoice_lines add column stocked numeric', [schema]);
      await trx.raw(
        `update ??.invoice_lines l
            set stocked = case when l.catalog_checked and (i.invoicetype not in ('creditout', 'creditin') or i.restock)
                               then l.quantity else 0 end
           from ??.invoices i
          where i.id = l.invoice_id and i.invoicestatus in ('open', 'paid', 'written_off')`,
        [schema, schema],
      );
      await trx.raw('alter table ??.payment_allocations add column settles_credited boolean not null default false', [schema]);
      await trx.raw(
        'create unique index payment_allocations_settles_credited on ??.payment_allocations (credit_note_id) where settles_credited',
        [schema],
      );
    },
  },
  {
    // An issued invoice's files (PDF, UBL, CII, Factur-X) are kept as first rendered from what it
    // froze and served byte-identical ever after (docs/invoicing.md "Issued invoices never change"):
    // one row per invoice and format, the natural key, so racing first renders keep one.
    name: '024_issued_files',
    async up(trx, schema) {
      await trx.schema.withSchema(schema).createTable('issued_files', (t) => {
        t.integer('org_id').notNullable();
        t.integer('invoice_id').notNullable().references('id').inTable(`${schema}.invoices`);
        t.string('format', 16).notNullable();
        t.string('filename', 200).notNullable();
        t.string('content_type', 100).notNullable();
        t.binary('content').notNullable();
        t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
        t.primary(['org_id', 'invoice_id', 'format']);
      });
    },
  },
  {
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
  },
  {
    // Allocations name the entry that posted them, so the ledger replays them in posting order
    // (docs/invoicing.md "One ledger"): one made with its payment (`create` with allocations,
    // `register_payment`; the same transaction, so the same created_at) was posted by the payment's
    // entry, and is given it. An allocation made later that posted nothing (credit on the
    // document's own account, at the same worth) keeps none: it is replayed at its source's entry.
    name: '028_allocation_entries',
    async up(trx, schema) {
      await trx.raw(
        `update ??.payment_allocations a set journal_entry_id = p.journal_entry_id
           from ??.payments p
          where p.id = a.payment_id and a.journal_entry_id is null and a.created_at = p.created_at`,
        [schema, schema],
      );
    },
  },
  {
    // Aged balances read only the items that can be open on their day (ledger/history.ts `openOn`):
    // the payments with credit left, by their running balance, what an allocation or refund dated
    // after the day touched, by date, and the voided payments (few). (Open documents have
    // invoices_partner_open.)
    name: '029_ledger_open_items',
    async up(trx, schema) {
      await trx.raw(
        `create index payments_org_credit_left on ??.payments (org_id) where status = 'posted' and amount > allocated + refunded`,
        [schema],
      );
      await trx.raw('create index payment_allocations_org_date on ??.payment_allocations (org_id, allocation_date)', [schema]);
      await trx.raw('create index payment_refunds_org_date on ??.payment_refunds (org_id, refund_date)', [schema]);
      await trx.raw(`create index payments_org_voided on ??.payments (org_id) where status = 'voided'`, [schema]);
    },
  },
];
