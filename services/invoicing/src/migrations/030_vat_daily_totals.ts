import type { Migration } from '@bo/runtime';

export const migration: Migration = {
  // The VAT report reads daily totals instead of the journal (docs/invoicing.md "VAT report"): per
  // organization, day, document type, VAT account (none for a tagged revenue or expense line of a
  // category and rate its entry posted no VAT line for), category and rate, the sums of the debit,
  // credit and base of a document entry's lines, as the report summed them from the journal. A
  // trigger adds each statement's new journal lines in that statement, so the totals commit or roll
  // back with the lines they sum (an entry and its lines are one statement: journal.repository.ts),
  // a back-dated document moves its own day, and journal lines are never updated or deleted. The
  // accounts are the two VAT accounts validation posts to (reports/vat.report.ts VAT_ACCOUNTS).
  // Then the totals of the journal so far.
  name: '030_vat_daily_totals',
  async up(trx, schema) {
    const q = `"${schema.replace(/"/g, '""')}"`;
    await trx.raw(
      `create table ${q}.vat_daily_totals (
           org_id integer not null,
           day date not null,
           invoicetype varchar(16) not null,
           account varchar(255),
           tax_category varchar(255),
           tax_rate numeric,
           debit numeric not null,
           credit numeric not null,
           base numeric not null)`,
    );
    await trx.raw(
      `create unique index vat_daily_totals_key on ${q}.vat_daily_totals
           (org_id, day, invoicetype, account, tax_category, tax_rate) nulls not distinct`,
    );
    const sums = (lines: string) => `
        select e.org_id, e.journaldate, i.invoicetype,
               case when l.account in ('2200 Tax Payable', '1400 Tax Receivable') then l.account end,
               l.tax_category, l.tax_rate, sum(l.debit), sum(l.credit), coalesce(sum(abs(l.tax_base)), 0)
          from ${lines} l
          join ${q}.journal_entries e on e.id = l.entry_id and e.kind = 'invoice'
          join ${q}.invoices i on i.id = e.invoice_id
         where l.account in ('2200 Tax Payable', '1400 Tax Receivable')
            or (l.tax_category is not null and not exists (
                  select 1 from ${q}.journal_lines v
                   where v.entry_id = l.entry_id and v.account in ('2200 Tax Payable', '1400 Tax Receivable')
                     and v.tax_category is not distinct from l.tax_category and v.tax_rate is not distinct from l.tax_rate))
         group by 1, 2, 3, 4, 5, 6
         order by 1, 2, 3, 4, 5, 6`;
    await trx.raw(
      `create function ${q}.vat_daily_totals_add() returns trigger language plpgsql as $$
         begin
           insert into ${q}.vat_daily_totals as t (org_id, day, invoicetype, account, tax_category, tax_rate, debit, credit, base)
           ${sums('new_lines')}
           on conflict (org_id, day, invoicetype, account, tax_category, tax_rate)
           do update set debit = t.debit + excluded.debit, credit = t.credit + excluded.credit, base = t.base + excluded.base;
           return null;
         end $$`,
    );
    await trx.raw(
      `create trigger journal_lines_vat_daily_totals after insert on ${q}.journal_lines
           referencing new table as new_lines for each statement execute function ${q}.vat_daily_totals_add()`,
    );
    await trx.raw(
      `insert into ${q}.vat_daily_totals (org_id, day, invoicetype, account, tax_category, tax_rate, debit, credit, base)
         ${sums(`${q}.journal_lines`)}`,
    );
  },
};
