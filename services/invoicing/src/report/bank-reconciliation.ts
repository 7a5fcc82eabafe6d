import type { invoicing } from '@bo/contracts';
import { dec, formatDate, sum, toNumber, type Dec } from '@bo/kernel';

/** What the reconciliation of one bank account reads: its statements, its journal account, the lines the books do not hold. */
export interface BankAccountState {
  journal: string;
  iban: string;
  currency: string;
  bookCurrency: string | null;
  statement: { id: number; statement_id: string; statement_date: string | Date | null; closing_balance: string };
  /** The opening balance of the account's first imported statement. */
  openingBalance: string;
  bookBalance: string;
  /** Lines neither reconciled nor, for `ignored`, in the books. */
  lines: ReadonlyArray<{
    id: number;
    statement_id: number;
    booking_date: string | Date;
    amount: string;
    currency: string;
    status: invoicing.BankLineStatus;
    counterparty_name: string | null;
    remittance_text: string | null;
  }>;
}

/**
 * One bank account reconciled (pure; docs/bank.md "Bank reconciliation report"). The books start
 * from the first statement's opening balance, so the journal account should hold the statement's
 * balance less that opening; the difference is what the bank booked and the books do not (yet):
 * the open lines and the ones set aside. What they leave is `unexplained`: zero when every booking
 * of the journal's account came from a statement line. Figures of different currencies are not
 * compared (difference and unexplained null).
 */
export function reconcileBankAccount(state: BankAccountState): invoicing.BankReconciliationAccount {
  const open = state.lines.filter((l) => l.status === 'unmatched' || l.status === 'suggested');
  const openTotal = sum(open.map((l) => dec(l.amount)));
  const ignoredTotal = sum(state.lines.filter((l) => l.status === 'ignored').map((l) => dec(l.amount)));
  const comparable = state.bookCurrency === null || state.bookCurrency === state.currency;
  const difference: Dec | null = comparable
    ? dec(state.statement.closing_balance).minus(dec(state.openingBalance)).minus(dec(state.bookBalance))
    : null;
  return {
    journal: state.journal,
    iban: state.iban,
    currency: state.currency,
    book_currency: state.bookCurrency,
    statement: {
      id: state.statement.id,
      statement_id: state.statement.statement_id,
      statement_date: formatDate(state.statement.statement_date),
    },
    opening_balance: toNumber(state.openingBalance),
    statement_balance: toNumber(state.statement.closing_balance),
    book_balance: toNumber(state.bookBalance),
    difference: difference === null ? null : toNumber(difference.toFixed()),
    open_lines: open.map((l) => ({
      id: l.id,
      statement: l.statement_id,
      booking_date: formatDate(l.booking_date) ?? '',
      amount: toNumber(l.amount),
      currency: l.currency,
      status: l.status as 'unmatched' | 'suggested',
      counterparty_name: l.counterparty_name,
      remittance_text: l.remittance_text,
    })),
    open_total: toNumber(openTotal.toFixed()),
    ignored_total: toNumber(ignoredTotal.toFixed()),
    unexplained: difference === null ? null : toNumber(difference.minus(openTotal).minus(ignoredTotal).toFixed()),
  };
}
