import type { invoicing } from '@bo/contracts';
import { readSettings } from '@bo/billing';
import { type Knex } from '@bo/runtime';
import { journalAccountBalance, linesNotReconciled, statementsAsOf } from '../bank/bank.repository';
import { reconcileBankAccount } from './bank-reconciliation';
import { reportSnapshot } from './snapshot';

/**
 * The bank reconciliation as of a day (default the organization's today), read in one snapshot:
 * per bank account with a statement dated by then, its last statement's closing balance against
 * its journal account dated by then, the difference, and the lines not reconciled.
 */
export async function bankReconciliationReport(
  db: Knex,
  orgId: number,
  req: invoicing.BankReconciliationReportRequest,
): Promise<invoicing.BankReconciliationReportReply> {
  return reportSnapshot(db, async (trx) => {
    const settings = await readSettings(trx, orgId);
    const asOf = req.as_of ?? settings.today();
    const bookCurrency = settings.taxPolicy.accounting_currency;
    const accounts: invoicing.BankReconciliationAccount[] = [];
    for (const { first, last } of await statementsAsOf(trx, orgId, asOf)) {
      accounts.push(
        reconcileBankAccount({
          journal: last.journal,
          iban: last.iban,
          currency: last.currency,
          bookCurrency,
          statement: last,
          openingBalance: first.opening_balance,
          bookBalance: await journalAccountBalance(trx, orgId, last.journal, asOf),
          lines: await linesNotReconciled(trx, orgId, last.iban, last.id),
        }),
      );
    }
    const open = accounts.reduce((n, a) => n + a.open_lines.length, 0);
    return {
      message: accounts.length
        ? `Bank reconciliation as of ${asOf}: ${accounts.length} account(s), ${open} open line(s)`
        : `No bank statement dated on or before ${asOf}`,
      report: 'bank_reconciliation',
      as_of: asOf,
      accounts,
    };
  });
}
