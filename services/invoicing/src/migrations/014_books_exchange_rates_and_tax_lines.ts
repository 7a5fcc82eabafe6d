import type { Migration } from '@bo/runtime';

export const migration: Migration = {
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
};
