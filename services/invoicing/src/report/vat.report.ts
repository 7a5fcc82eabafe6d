import type { invoicing } from '@bo/contracts';
import type { Knex } from '@bo/runtime';
import { accountsFor } from '../domain/journal';
import { accountingCurrency } from '../exchange-rate/exchange-rate.repository';
import { reportSnapshot } from './snapshot';
import { vatReportFigures, type VatAccounts, type VatLineGroup } from './vat-rows';

/** The VAT accounts validation posts to: a sale's tax account and a purchase's. */
export const VAT_ACCOUNTS: VatAccounts = {
  output: accountsFor('invoiceout', {}).tax,
  input: accountsFor('invoicein', {}).tax,
};

/**
 * The VAT report of a period from the daily totals (`vat_daily_totals`, migration 030): per day,
 * document type, VAT account, category and rate, what the journal lines of the documents' entries
 * dated that day (the document's date, the organization's local date) sum to, kept by a trigger in
 * the transaction that posts the lines. A year is a few rows a day, whatever the journal holds; the
 * totals sum as the journal's lines would (`vatLinesOfJournal`), then `vatReportFigures` lays them out.
 */
export async function vatReport(db: Knex, orgId: number, req: invoicing.VatReportRequest): Promise<invoicing.VatReportReply> {
  const { groups, currency } = await reportSnapshot(db, async (trx) => ({
    groups: await trx('vat_daily_totals')
      .where({ org_id: orgId })
      .whereBetween('day', [req.date_from, req.date_to])
      .groupBy('invoicetype', 'account', 'tax_category', 'tax_rate')
      .select<VatLineGroup[]>(
        'invoicetype',
        'account',
        'tax_category',
        'tax_rate',
        trx.raw('sum(debit) as debit'),
        trx.raw('sum(credit) as credit'),
        trx.raw('sum(base) as base'),
      ),
    currency: await accountingCurrency(trx, orgId),
  }));
  const figures = vatReportFigures(groups, VAT_ACCOUNTS);
  return {
    message: figures.rows.length ? 'VAT report computed successfully' : 'No VAT posted in the period',
    report: 'vat',
    date_from: req.date_from,
    date_to: req.date_to,
    currency,
    ...figures,
  };
}

/**
 * What the daily totals stand for, read from the journal itself: the VAT lines of the journal
 * entries of documents validated with a date in the period, and the tagged revenue and expense lines
 * of the categories and rates that posted none, summed by document type, account, category and rate.
 * The totals are derived data; this is their definition, and a test holds the two equal.
 */
export function vatLinesOfJournal(db: Knex, orgId: number, dateFrom: string, dateTo: string): Promise<VatLineGroup[]> {
  const { output, input } = VAT_ACCOUNTS;
  return (
    db('journal_entries as e')
      .join('journal_lines as l', 'l.entry_id', 'e.id')
      .join('invoices as i', 'i.id', 'e.invoice_id')
      .where({ 'e.org_id': orgId, 'e.kind': 'invoice' })
      .whereBetween('e.journaldate', [dateFrom, dateTo])
      .where((w) => {
        void w.whereIn('l.account', [output, input]).orWhere((tagged) => {
          // A revenue or expense line tagged with a category and rate its entry posted no VAT line for.
          void tagged.whereNotNull('l.tax_category').whereNotExists((vat) => {
            void vat
              .select(db.raw('1'))
              .from('journal_lines as v')
              .whereRaw('v.entry_id = l.entry_id')
              .whereIn('v.account', [output, input])
              .whereRaw('v.tax_category is not distinct from l.tax_category and v.tax_rate is not distinct from l.tax_rate');
          });
        });
      })
      // By the first four columns selected: document type, VAT account (or none), category, rate.
      .groupByRaw('1, 2, 3, 4')
      .select<VatLineGroup[]>(
        'i.invoicetype',
        db.raw('case when l.account in (?, ?) then l.account end as account', [output, input]),
        'l.tax_category',
        'l.tax_rate',
        db.raw('sum(l.debit) as debit'),
        db.raw('sum(l.credit) as credit'),
        db.raw('coalesce(sum(abs(l.tax_base)), 0) as base'),
      )
  );
}
