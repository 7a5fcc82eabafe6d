import { dec } from '@bo/kernel';
import { decideDunning, levelsProblem, statutoryInterest, type DunningLevel, type OverdueInvoice } from './decide-dunning';
import { DEFAULT_FEE_TAX, FEE_ACCOUNT } from './fee-invoice';

const levels: DunningLevel[] = [
  { level: 1, days_after_due: 7, fee: '0', interest: false, text: 'Friendly reminder' },
  { level: 2, days_after_due: 21, fee: '5', interest: true, text: 'Second reminder' },
  { level: 3, days_after_due: 35, fee: '10.00', interest: true, text: 'Final notice' },
];
/** 4.5 % reference rate + 8 points = 12.5 % a year. */
const interest = { reference_rate: '4.5', points: '8' };
const invoice = (over: Partial<OverdueInvoice> = {}): OverdueInvoice => ({
  invoice_id: 7,
  partner_id: 3,
  invoicenumber: 'INV-00007',
  currency: 'EUR',
  due_date: '2026-01-31',
  due_amount: '1000.00',
  disputed: false,
  partner_blocked: false,
  last_level: 0,
  tradeaccount: null,
  exchange_rate: null,
  ...over,
});
const decide = (asOf: string, invoices: OverdueInvoice[]) => decideDunning({ asOf, levels, interest, invoices });

describe('decideDunning', () => {
  it('given an invoice 7 days overdue and nothing sent, when run, then level 1 without fee or interest', () => {
    const { letters } = decide('2026-02-07', [invoice()]);
    expect(letters).toEqual([
      expect.objectContaining({
        invoice_id: 7,
        level: 1,
        days_overdue: 7,
        fee: '0.00',
        interest: '0.00',
        interest_rate: null,
        total: '1000.00',
      }),
    ]);
  });

  it('given level 1 sent, when run 21 days after the due date, then level 2 with its fee and 21 days of interest at 12.5 %', () => {
    // By hand: 1000.00 × 12.5 % = 125.00 a year; × 21 / 365 = 7.1917… → 7.19; total 1000.00 + 5.00 + 7.19.
    const { letters } = decide('2026-02-21', [invoice({ last_level: 1 })]);
    expect(letters).toEqual([
      expect.objectContaining({ level: 2, days_overdue: 21, fee: '5.00', interest_rate: '12.5', interest: '7.19', total: '1012.19' }),
    ]);
  });

  it('given level 2 sent, when run 35 days after (February has 28 days), then level 3 with 35 days of interest', () => {
    // By hand: 125.00 × 35 / 365 = 11.9863… → 11.99; total 1000.00 + 10.00 + 11.99.
    const { letters } = decide('2026-03-07', [invoice({ last_level: 2 })]);
    expect(letters).toEqual([expect.objectContaining({ level: 3, days_overdue: 35, fee: '10.00', interest: '11.99', total: '1021.99' })]);
  });

  it('given a long pause, when run, then only the next level: never a jump to level 3', () => {
    const { letters } = decide('2026-06-01', [invoice()]);
    expect(letters.map((l) => l.level)).toEqual([1]);
  });

  it('given invoices not overdue, paid, disputed, of a blocked partner, at their last level or before the next level’s day, then no letter', () => {
    const { letters, skipped } = decide('2026-02-10', [
      invoice({ invoice_id: 1, due_date: '2026-02-10' }),
      invoice({ invoice_id: 2, due_amount: '0.00' }),
      invoice({ invoice_id: 3, disputed: true }),
      invoice({ invoice_id: 4, partner_blocked: true }),
      invoice({ invoice_id: 5, last_level: 3, due_date: '2025-01-01' }),
      invoice({ invoice_id: 6, last_level: 1 }),
    ]);
    expect(letters).toEqual([]);
    expect(skipped).toEqual([
      { invoice_id: 3, reason: 'disputed' },
      { invoice_id: 4, reason: 'partner_blocked' },
      { invoice_id: 5, reason: 'last_level_sent' },
      { invoice_id: 6, reason: 'not_yet_due' },
    ]);
  });

  it('given no interest setting, when a level charges interest, then none is charged and no rate is stated', () => {
    const { letters } = decideDunning({ asOf: '2026-02-21', levels, interest: null, invoices: [invoice({ last_level: 1 })] });
    expect(letters[0]).toMatchObject({ interest: '0.00', interest_rate: null, total: '1005.00' });
  });

  it('orders letters by partner, then invoice, and rounds each in its currency', () => {
    const { letters } = decide('2026-02-21', [
      invoice({ invoice_id: 9, partner_id: 2, currency: 'JPY', due_amount: '100000', last_level: 1 }),
      invoice({ invoice_id: 8, partner_id: 1, last_level: 1 }),
    ]);
    // By hand: ¥100000 × 12.5 % × 21 / 365 = 719.178… → 719 (JPY has no minor unit).
    expect(letters.map((l) => [l.partner_id, l.invoice_id, l.interest, l.fee, l.total])).toEqual([
      [1, 8, '7.19', '5.00', '1012.19'],
      [2, 9, '719', '5', '100724'],
    ]);
  });
});

describe('decideDunning with post_fees', () => {
  const posting = { post: true, tax: DEFAULT_FEE_TAX, account: '8400 Late Fees' };

  it('given post_fees on, when a letter has a fee, then it carries the fee invoice: the partner, currency, receivable and rate of the reminded invoice, dated as_of, to the organization’s fee account', () => {
    const { letters } = decideDunning({
      asOf: '2026-02-21',
      levels,
      interest,
      invoices: [invoice({ last_level: 1, tradeaccount: '1210 EU', currency: 'USD', exchange_rate: '0.9' })],
      fees: posting,
    });
    expect(letters[0]?.fee_invoice).toEqual({
      partner_id: 3,
      currency: 'USD',
      as_of: '2026-02-21',
      tradeaccount: '1210 EU',
      exchange_rate: '0.9',
      invoicenumber: 'INV-00007',
      level: 2,
      fee: '5.00',
      tax: DEFAULT_FEE_TAX,
      account: '8400 Late Fees',
    });
  });

  it('given post_fees on, when the letter charges no fee, then nothing is posted', () => {
    const { letters } = decideDunning({ asOf: '2026-02-07', levels, interest, invoices: [invoice()], fees: posting });
    expect(letters.map((l) => [l.level, l.fee, l.fee_invoice])).toEqual([[1, '0.00', null]]);
  });

  it('given post_fees off, when the letter has a fee, then it is stated on the letter only', () => {
    const { letters } = decideDunning({
      asOf: '2026-02-21',
      levels,
      interest,
      invoices: [invoice({ last_level: 1 })],
      fees: { post: false, tax: DEFAULT_FEE_TAX, account: FEE_ACCOUNT },
    });
    expect(letters.map((l) => [l.level, l.fee, l.fee_invoice])).toEqual([[2, '5.00', null]]);
  });
});

describe('statutory interest', () => {
  it('is actual/365 simple interest rounded half up once', () => {
    // 73.00 × 12.5 % / 365 × 1 day = 0.025 exactly → 0.03 (half up).
    expect(statutoryInterest('73.00', dec('12.5'), 1, 'EUR').toFixed(2)).toBe('0.03');
    // A leap-year span counts its 366 days over 365: 365.00 × 10 % × 366 / 365 = 36.60.
    expect(statutoryInterest('365.00', dec('10'), 366, 'EUR').toFixed(2)).toBe('36.60');
    expect(statutoryInterest('1000', dec('12.5'), 0, 'EUR').toFixed(2)).toBe('0.00');
  });
});

describe('levels', () => {
  it('must be numbered 1 to n with increasing days', () => {
    expect(levelsProblem(levels)).toBeNull();
    expect(levelsProblem([{ level: 2, days_after_due: 7 }])).toMatchObject({ field: 'levels' });
    expect(levelsProblem([levels[0]!, { level: 2, days_after_due: 7 }])).toMatchObject({ field: 'levels' });
  });
});
