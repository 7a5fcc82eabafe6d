import { decideDunning, type DunningLevel, type OverdueInvoice } from './decide-dunning';
import { lettersToStore, readWithPartners, runReply, storedRecords } from './decide-run';
import { DEFAULT_FEE_TAX, FEE_ACCOUNT } from './fee-invoice';

const levels: DunningLevel[] = [
  { level: 1, days_after_due: 7, fee: '0', interest: false, text: 'Friendly reminder' },
  { level: 2, days_after_due: 21, fee: '5', interest: true, text: 'Second reminder' },
];
const interest = { reference_rate: '4.5', points: '8' };
const invoice = (invoice_id: number, over: Partial<OverdueInvoice> = {}): OverdueInvoice => ({
  invoice_id,
  partner_id: 3,
  invoicenumber: `INV-${invoice_id}`,
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
const reads = new Map([
  [7, '901'],
  [8, '902'],
]);
const decide = (asOf: string, invoices: OverdueInvoice[], post = false) =>
  decideDunning({ asOf, levels, interest, invoices, fees: { post, tax: DEFAULT_FEE_TAX, account: FEE_ACCOUNT } });

describe('the letters a run stores as one statement', () => {
  it('given two letters and ids drawn, when stored alone, then each takes an id in order with its invoice as read', () => {
    const decision = decide('2026-02-07', [invoice(8), invoice(7)]);
    const letters = lettersToStore(decision, [501, 502, 503], reads);
    expect(letters?.map((l) => [l.id, l.plan.invoice_id, l.plan.level, l.read])).toEqual([
      [501, 7, 1, '901'],
      [502, 8, 1, '902'],
    ]);
  });

  it('given nothing to send, when stored alone, then no letters (the statement checks the setup only)', () => {
    expect(lettersToStore(decide('2026-02-01', [invoice(7)]), [], reads)).toEqual([]);
  });

  it('given post_fees on and a letter with a fee, when stored alone, then the run goes the locked way', () => {
    const decision = decide('2026-02-21', [invoice(7, { last_level: 1 })], true);
    expect(decision.letters[0]!.fee_invoice).not.toBeNull();
    expect(lettersToStore(decision, [501], reads)).toBeUndefined();
  });

  it('given post_fees on and no letter with a fee, when stored alone, then its letters are stored alone', () => {
    expect(lettersToStore(decide('2026-02-07', [invoice(7)], true), [501], reads)?.map((l) => l.id)).toEqual([501]);
  });

  it('given fewer ids drawn than letters, or a letter of an invoice not read, when stored alone, then the run goes the locked way', () => {
    const decision = decide('2026-02-07', [invoice(7), invoice(8)]);
    expect(lettersToStore(decision, [501], reads)).toBeUndefined();
    expect(lettersToStore(decision, [501, 502], new Map([[7, '901']]))).toBeUndefined();
  });

  it('given letters stored alone, when answered, then each is its record with its id and no fee invoice, and the reply says how many were sent', () => {
    // By hand: 1000.00 × 12.5 % × 21 / 365 = 7.1917… → 7.19; total 1000.00 + 5.00 + 7.19.
    const decision = decide('2026-02-21', [invoice(7, { last_level: 1 })]);
    const records = storedRecords(lettersToStore(decision, [501], reads)!, '2026-02-21');
    expect(records).toEqual([
      {
        id: 501,
        invoice_id: 7,
        invoicenumber: 'INV-7',
        partner: 3,
        level: 2,
        as_of: '2026-02-21',
        due_date: '2026-01-31',
        currency: 'EUR',
        due_amount: 1000,
        days_overdue: 21,
        fee: 5,
        interest_rate: 12.5,
        interest: 7.19,
        total: 1012.19,
        text: 'Second reminder',
        fee_invoice_id: null,
      },
    ]);
    expect(runReply('2026-02-21', false, records, [{ invoice_id: 9, reason: 'disputed' }])).toEqual({
      message: '1 reminder letter(s) sent as of 2026-02-21',
      as_of: '2026-02-21',
      dry_run: false,
      letters: records,
      skipped: [{ invoice_id: 9, reason: 'disputed' }],
    });
    expect(runReply('2026-02-21', true, [], []).message).toBe('0 reminder letter(s) would be sent as of 2026-02-21');
  });
});

describe('a run read before the partners were asked (readWithPartners)', () => {
  const read = {
    invoices: [invoice(7, { partner_id: 3 }), invoice(8, { partner_id: 4 }), invoice(9, { partner_id: 5 })],
    setup: { levels, settings: {} as never },
    reads,
    setupRead: '77',
    drawn: [41, 42, 43],
  };

  it('marks each invoice as its partner answered, keeps the rest of the read, and leaves the partners not asked for the next run', () => {
    const narrowed = readWithPartners(
      read,
      new Map([
        [3, { blocked: true }],
        [4, { blocked: false }],
      ]),
    );
    expect(narrowed.invoices.map((i) => [i.invoice_id, i.partner_blocked])).toEqual([
      [7, true],
      [8, false],
    ]);
    expect(narrowed).toMatchObject({ reads, setupRead: '77', drawn: [41, 42, 43] });
    // The blocked partner's invoice gets no letter; the other's does.
    expect(decide('2026-02-10', narrowed.invoices).letters.map((l) => l.invoice_id)).toEqual([8]);
  });
});
