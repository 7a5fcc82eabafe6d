import { reconcileBankAccount, type BankAccountState } from './bank-reconciliation';

const line = (id: number, amount: string, status: BankAccountState['lines'][number]['status']) => ({
  id,
  statement_id: 2,
  booking_date: '2026-03-02',
  amount,
  currency: 'EUR',
  status,
  counterparty_name: null,
  remittance_text: `line ${id}`,
});
const state = (over: Partial<BankAccountState> = {}): BankAccountState => ({
  journal: 'Bank',
  iban: 'DE89370400440532013000',
  currency: 'EUR',
  bookCurrency: 'EUR',
  statement: { id: 2, statement_id: 'STMT-2', statement_date: '2026-03-02', closing_balance: '1250.10' },
  openingBalance: '1000.00',
  bookBalance: '200.00',
  lines: [],
  ...over,
});

describe('bank reconciliation of an account', () => {
  it('given every line reconciled, then the books hold the statement less the opening: no difference', () => {
    const account = reconcileBankAccount(state({ bookBalance: '250.10' }));
    expect(account).toMatchObject({ statement_balance: 1250.1, book_balance: 250.1, difference: 0, open_total: 0, unexplained: 0 });
    expect(account.open_lines).toEqual([]);
  });

  it('given open and ignored lines, then they explain the difference to the cent and the open ones are listed', () => {
    // 1250.10 − 1000.00 − 200.00 = 50.10 = 60.30 open (70.30 − 10.00) − 10.20 ignored.
    const account = reconcileBankAccount(
      state({ lines: [line(7, '70.30', 'suggested'), line(8, '-10.00', 'unmatched'), line(9, '-10.20', 'ignored')] }),
    );
    expect(account).toMatchObject({ difference: 50.1, open_total: 60.3, ignored_total: -10.2, unexplained: 0 });
    expect(account.open_lines.map((l) => [l.id, l.amount, l.status])).toEqual([
      [7, 70.3, 'suggested'],
      [8, -10, 'unmatched'],
    ]);
  });

  it('given a payment posted to the journal by hand and no line for it, then it is what is unexplained', () => {
    expect(reconcileBankAccount(state({ bookBalance: '299.99' }))).toMatchObject({ difference: -49.89, unexplained: -49.89 });
  });

  it('given decimals a double would round, then the figures are exact', () => {
    const account = reconcileBankAccount(
      state({
        statement: { id: 2, statement_id: 'S', statement_date: null, closing_balance: '0.30' },
        openingBalance: '0.10',
        bookBalance: '0.20',
      }),
    );
    expect(account.difference).toBe(0);
    expect(account.statement.statement_date).toBeNull();
  });

  it('given a statement in another currency than the books, then nothing is compared', () => {
    expect(reconcileBankAccount(state({ currency: 'USD' }))).toMatchObject({ difference: null, unexplained: null, book_currency: 'EUR' });
  });
});
