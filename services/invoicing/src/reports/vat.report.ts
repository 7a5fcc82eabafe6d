import type { invoicing } from '@bo/contracts';
import type { Knex } from '@bo/runtime';
import { accountsFor } from '../domain/journal';
import { accountingCurrency } from '../exchange-rate/exchange-rate.repository';
import { vatReportFigures, type VatAccounts, type VatLineGroup } from './vat-rows';

/** The VAT accounts validation posts to: a sale's tax account and a purchase's. */
export const VAT_ACCOUNTS: VatAccounts = {
  output: accountsFor('invoiceout', {}).tax,
  input: accountsFor('invoicein', {}).tax,
};

/**
 * The VAT report of a period: the VAT lines of the journal entries of documents validated with a
 * date in it (the entry's date is the document's, the organization's local date), and the tagged
 * revenue and expense lines of the categories and rates that posted none, summed in one statement
 * (one snapshot), then laid out by `vatReportFigures`.
 */
export async function vatReport(db: Knex, orgId: number, req: invoicing.VatReportRequest): Promise<invoicing.VatReportReply> {
  const { output, input } = VAT_ACCOUNTS;
  const groups: VatLineGroup[] = await db('journal_entries as e')
    .join('journal_lines as l', 'l.entry_id', 'e.id')
    .join('invoices as i', 'i.id', 'e.invoice_id')
    .where({ 'e.org_id': orgId, 'e.kind': 'invoice' })
    .whereBetween('e.journaldate', [req.date_from, req.date_to])
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
    );
  const figures = vatReportFigures(groups, VAT_ACCOUNTS);
  return {
    message: figures.rows.length ? 'VAT report computed successfully' : 'No VAT posted in the period',
    report: 'vat',
    date_from: req.date_from,
    date_to: req.date_to,
    currency: await accountingCurrency(db, orgId),
    ...figures,
  };
}
