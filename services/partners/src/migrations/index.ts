import { storedRecordMigration, withLockTimeout, type Migration } from '@bo/runtime';
import { partnerRecordFields } from '../partner/partner.record';

export const partnersMigrations: Migration[] = [
  {
    name: '001_partners',
    async up(trx, schema) {
      await trx.schema.withSchema(schema).createTable('partners', (t) => {
        t.increments('id');
        t.integer('org_id').notNullable();
        t.string('partnername', 200).notNullable();
        t.string('display_name', 200).notNullable();
        t.string('partner_type', 16).notNullable();
        t.string('email', 254);
        t.string('phone', 50);
        t.text('address');
        t.string('tax_number', 50);
        t.decimal('credit_limit', 18, 2).notNullable().defaultTo(0);
        t.decimal('balance', 18, 2).notNullable().defaultTo(0);
        t.decimal('committed', 18, 2).notNullable().defaultTo(0);
        t.string('currency', 3);
        t.text('payment_terms');
        t.string('contact_person', 200);
        t.text('notes');
        t.string('created_by', 64);
        t.string('updated_by', 64);
        t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
        t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
        t.timestamp('deleted_at', { useTz: true });
      });
      await trx.raw(`alter table ??.partners add constraint partners_type_check check (partner_type in ('customer','vendor','both'))`, [
        schema,
      ]);
      await trx.raw('create index partners_org_live on ??.partners (org_id, id desc) where deleted_at is null', [schema]);

      // One row per document (invoice, credit note, bill, vendor credit) or payment that moved a balance.
      // What was paid on a document is derived from its payment rows, so events may arrive in any order.
      await trx.schema.withSchema(schema).createTable('partner_transactions', (t) => {
        t.bigIncrements('id');
        t.integer('org_id').notNullable();
        t.integer('partner_id').notNullable().references('id').inTable(`${schema}.partners`);
        t.string('type', 20).notNullable();
        t.string('source', 20).notNullable();
        t.integer('source_id').notNullable();
        t.integer('invoice_id').notNullable();
        t.string('document_number', 64).notNullable();
        t.date('date').notNullable();
        t.decimal('amount', 18, 2).notNullable();
        t.decimal('balance_effect', 18, 2).notNullable();
        t.uuid('event_id').notNullable();
        t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
        t.unique(['org_id', 'source', 'source_id']);
        t.index(['org_id', 'partner_id', 'date']);
      });

      // Converted quotations whose invoice is not validated or cancelled yet (docs/design.md: committed).
      await trx.schema.withSchema(schema).createTable('commitments', (t) => {
        t.integer('org_id').notNullable();
        t.integer('invoice_id').notNullable();
        t.integer('partner_id');
        t.integer('quotation_id');
        t.string('quotation_number', 64);
        t.decimal('amount', 18, 2).notNullable().defaultTo(0);
        t.string('status', 10).notNullable();
        t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
        t.timestamp('released_at', { useTz: true });
        t.primary(['org_id', 'invoice_id']);
      });
    },
  },
  {
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
  },
  {
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
  },
  {
    // The organization's rounding policy for its documents (docs/invoicing.md "Taxes and rounding"):
    // null reads as `line`, the arithmetic of every document before the policy existed.
    name: '004_organization_rounding',
    async up(trx, schema) {
      await trx.raw(
        `alter table ??.organization_profiles add column rounding varchar(8) check (rounding in ('line', 'document')),
           add column cash_rounding numeric(14, 4) check (cash_rounding > 0)`,
        [schema],
      );
    },
  },
  {
    // The last day of closed books (docs/invoicing.md "Lock date"); null: none.
    name: '005_organization_lock_date',
    async up(trx, schema) {
      await trx.raw('alter table ??.organization_profiles add column lock_date date', [schema]);
    },
  },
  {
    // The ledger's amounts are in the documents' currency to its minor unit (docs/invoicing.md
    // "Partners"), three decimals for KWD or BHD, as invoicing keeps them (its 018): unbounded, so a
    // value keeps the decimals it was written with; every amount stored before reads as it did.
    name: '006_ledger_minor_units',
    async up(trx, schema) {
      // A new row's zero reads 0.00, as it did.
      const exact = (...columns: string[]) =>
        columns.map((c) => `alter column ${c} type numeric, alter column ${c} set default 0.00`).join(', ');
      // No table is rewritten (dropping a numeric's scale is binary-compatible), but each ALTER takes
      // its table's lock while the running ledger writes it: a bounded wait, as for any live table.
      await withLockTimeout(trx, async () => {
        await trx.raw(`alter table ??.partners ${exact('balance', 'receivable', 'committed')}`, [schema]);
        await trx.raw(
          `alter table ??.partner_transactions ${exact('receivable_effect')}, alter column amount type numeric, alter column balance_effect type numeric`,
          [schema],
        );
        await trx.raw(`alter table ??.commitments ${exact('amount')}`, [schema]);
      });
    },
  },
  {
    // A credit limit is in the partner's currency to its minor unit (partner/credit-limit.ts), three
    // decimals for KWD or BHD, as the balance it is weighed against: unbounded, as 006 made the ledger.
    name: '007_credit_limit_minor_units',
    async up(trx, schema) {
      await withLockTimeout(trx, () =>
        trx.raw('alter table ??.partners alter column credit_limit type numeric, alter column credit_limit set default 0.00', [schema]),
      );
    },
  },
  {
    // Balances per currency (docs/partners.md "Currencies"): each ledger row and commitment keeps the
    // currency of its document or money, and partner_balances sums them per partner and currency, with
    // what its documents came to in the accounting currency (the rate they were posted at). Rows
    // posted before events named a currency are taken to be in the partner's currency, else the
    // organization's default ('' when neither is known): documents took those as they were made. Their
    // rate was never told, so their documents count in no rate (only ones posted from now on do).
    name: '008_ledger_per_currency',
    async up(trx, schema) {
      await withLockTimeout(trx, async () => {
        await trx.raw('alter table ??.partner_transactions add column currency varchar(3), add column accounting_amount numeric', [schema]);
        await trx.raw('alter table ??.commitments add column currency varchar(3)', [schema]);
        for (const table of ['partner_transactions', 'commitments'])
          await trx.raw(
            `update ??.?? t set currency = coalesce(p.currency, o.default_currency)
               from ??.partners p left join ??.organization_profiles o on o.org_id = p.org_id
              where p.org_id = t.org_id and p.id = t.partner_id`,
            [schema, table, schema, schema],
          );
      });
      await trx.schema.withSchema(schema).createTable('partner_balances', (t) => {
        t.integer('org_id').notNullable();
        t.integer('partner_id').notNullable();
        t.string('currency', 3).notNullable();
        t.decimal('balance').notNullable().defaultTo(0);
        t.decimal('receivable').notNullable().defaultTo(0);
        t.decimal('committed').notNullable().defaultTo(0);
        // Sum of the totals of the documents posted with their accounting-currency worth, and that worth.
        t.decimal('documents_total').notNullable().defaultTo(0);
        t.decimal('documents_accounting').notNullable().defaultTo(0);
        t.primary(['org_id', 'partner_id', 'currency']);
      });
      // knex's decimal() without precision is numeric(8, 2) on PostgreSQL: amounts are unbounded numerics here.
      await trx.raw(
        `alter table ??.partner_balances alter column balance type numeric, alter column receivable type numeric,
           alter column committed type numeric, alter column documents_total type numeric, alter column documents_accounting type numeric`,
        [schema],
      );
      await trx.raw(
        `insert into ??.partner_balances (org_id, partner_id, currency, balance, receivable, committed)
         select org_id, partner_id, currency, sum(balance), sum(receivable), sum(committed) from (
           select org_id, partner_id, coalesce(currency, '') as currency, balance_effect as balance, receivable_effect as receivable, 0 as committed
             from ??.partner_transactions
           union all
           select org_id, partner_id, coalesce(currency, ''), 0, 0, amount from ??.commitments where status = 'open' and partner_id is not null
         ) m group by org_id, partner_id, currency`,
        [schema, schema, schema],
      );
    },
  },
  {
    // The journal's figure beside the face amount (docs/partners.md "Currencies"): a row posted from an
    // event that tells its journal entry's trade move (`trade_delta`) keeps it, and partner_balances
    // sums, per currency, those moves (`booked_*`) and the face amounts of the same rows
    // (`booked_face_*`), so the accounting-currency balance is the journal's for what was told and
    // weighed at the documents' rate, as before, for the rest. Rows posted before stay untold.
    name: '009_ledger_journal_moves',
    async up(trx, schema) {
      await withLockTimeout(trx, async () => {
        await trx.raw(
          'alter table ??.partner_transactions add column accounting_effect numeric, add column accounting_receivable_effect numeric',
          [schema],
        );
        await trx.raw(
          `alter table ??.partner_balances add column booked_balance numeric not null default 0,
             add column booked_receivable numeric not null default 0, add column booked_face_balance numeric not null default 0,
             add column booked_face_receivable numeric not null default 0`,
          [schema],
        );
      });
    },
  },
  // Each partner's record as a list answers it, kept by PostgreSQL (repeatable: renamed, and so
  // rebuilt, whenever the record's fields change). Keep it last.
  storedRecordMigration('partners', partnerRecordFields),
];
