import { decideRecordFigures, weighBalances, type CurrencyBalanceRow } from './currency-balances';

const row = (currency: string, balance: number, documents_total = 0, documents_accounting = 0, committed = 0): CurrencyBalanceRow => ({
  currency,
  balance,
  receivable: balance,
  committed,
  documents_total,
  documents_accounting,
});

describe('a partner balance per currency, weighed in the partner’s', () => {
  it("weighs a JPY invoice for a EUR customer at its document's rate: 100,000 JPY at 0.0062 is 620 EUR", () => {
    const weighed = weighBalances([row('JPY', 100000, 100000, 620)], 'EUR', 'EUR');
    expect([weighed.currency, weighed.balance.toFixed(2), weighed.receivable.toFixed(2), weighed.committed.toFixed(2)]).toEqual([
      'EUR',
      '620.00',
      '620.00',
      '0.00',
    ]);
    expect(weighed.balances).toEqual([{ currency: 'JPY', balance: 100000, receivable: 100000, committed: 0 }]);
  });

  it('adds the currencies only once weighed, and leaves a single-currency partner as it was', () => {
    const weighed = weighBalances([row('EUR', 100.5, 0, 0, 20), row('JPY', 50000, 100000, 620)], 'EUR', 'EUR');
    expect([weighed.balance.toFixed(2), weighed.committed.toFixed(2)]).toEqual(['410.50', '20.00']);
    const yen = weighBalances([row('JPY', 100000)], 'JPY', 'EUR');
    expect([yen.currency, yen.balance.toFixed()]).toEqual(['JPY', '100000']);
    const kwd = weighBalances([row('KWD', 7.004)], null, 'KWD');
    expect([kwd.currency, kwd.balance.toFixed()]).toEqual(['KWD', '7.004']);
  });

  it("weighs in a partner currency other than the organization's through the accounting currency", () => {
    // Books in EUR; a USD customer whose USD documents went at 0.92, with a JPY one at 0.0062.
    const weighed = weighBalances([row('USD', 100, 1000, 920), row('JPY', 100000, 100000, 620)], 'USD', 'EUR');
    expect(weighed.balance.toFixed(2)).toBe('773.91'); // 100 + 620 / 0.92
  });

  it('counts a currency it has no rate for as it is, and keeps the currencies apart in balances', () => {
    const weighed = weighBalances([row('', 10), row('USD', 5)], 'EUR', 'EUR');
    expect(weighed.balance.toFixed(2)).toBe('15.00');
    expect(weighed.balances.map((b) => b.currency)).toEqual([null, 'USD']);
    expect(weighBalances([], null, null)).toMatchObject({ currency: null, balances: [] });
  });

  it("takes the journal's figure for what events told, and weighs only the untold rest at the documents' rate", () => {
    // A KWD invoice booked at 2.999994 (16.12 KWD: 48.36 EUR), an unallocated 16.12 KWD payment at 0.755127:
    // the journal's receivable is 48.36 − 12.17 = 36.19; the documents' rate would say 0.
    const told = { booked_balance: '36.19', booked_receivable: '36.19', booked_face_balance: '0', booked_face_receivable: '0' };
    const kwd = { ...row('KWD', 0, 16.12, 48.36), ...told };
    expect(weighBalances([kwd], null, 'EUR').balance.toFixed(2)).toBe('36.19');
    expect(weighBalances([kwd], null, 'EUR').receivable.toFixed(2)).toBe('36.19');
    // 10 KWD more from an event that told nothing: weighed at 48.36 / 16.12 = 3 EUR per KWD.
    const mixed = { ...row('KWD', 10, 16.12, 48.36), ...told };
    expect(weighBalances([mixed], 'EUR', 'EUR').balance.toFixed(2)).toBe('66.19');
    // A realized exchange difference moves the journal's figure with no face amount.
    const fx = {
      ...row('EUR', 0),
      booked_balance: '-1.25',
      booked_receivable: '-1.25',
      booked_face_balance: '0',
      booked_face_receivable: '0',
    };
    expect(weighBalances([kwd, fx], null, 'EUR').balance.toFixed(2)).toBe('34.94');
    // The committed amount is in no journal: still weighed at the documents' rate.
    expect(weighBalances([{ ...row('KWD', 0, 16.12, 48.36, 1), ...told }], null, 'EUR').committed.toFixed(2)).toBe('3.00');
    // Documents worth nothing in the accounting currency (66.123 KWD at 0.00102 is 0 JPY) weigh nothing, told or not.
    const crumbs = { ...row('KWD', 66.123, 66.123, 0, 5), booked_balance: 0, booked_face_balance: 66.123 };
    expect([weighBalances([crumbs], null, 'JPY').balance.toFixed(), weighBalances([crumbs], null, 'JPY').committed.toFixed()]).toEqual([
      '0',
      '0',
    ]);
    expect(weighBalances([row('KWD', 66.123, 66.123, 0)], null, 'JPY').balance.toFixed()).toBe('0');
  });
});

describe("a partner record's figures, as the list answers them", () => {
  it('given a EUR organization and a customer with no currency owing a 100 USD invoice booked at 90.00, when weighed, then balance is 90', () => {
    const usd = {
      ...row('USD', 100, 100, 90),
      booked_balance: '90',
      booked_receivable: '90',
      booked_face_balance: '100',
      booked_face_receivable: '100',
    };
    expect(decideRecordFigures([{ partner_id: 7, currency: null, accounting: 'EUR', rows: [usd] }])).toEqual([
      { partner_id: 7, balance: '90', receivable: '90', committed: '0' },
    ]);
  });

  it('given a vendor bill of 200 USD booked at 180.00 and a 50 USD quotation committed, then the figures are the balance view’s', () => {
    const bill = {
      ...row('USD', -200, 200, 180),
      receivable: 0,
      booked_balance: '-180',
      booked_receivable: '0',
      booked_face_balance: '-200',
      booked_face_receivable: '0',
      committed: 50,
    };
    const partner = { partner_id: 3, currency: 'EUR', accounting: 'EUR', rows: [bill] };
    const view = weighBalances(partner.rows, partner.currency, partner.accounting);
    expect(decideRecordFigures([partner])).toEqual([
      { partner_id: 3, balance: view.balance.toFixed(), receivable: view.receivable.toFixed(), committed: view.committed.toFixed() },
    ]);
    expect([view.balance.toFixed(), view.committed.toFixed()]).toEqual(['-180', '45']);
  });

  it('given a partner in USD, when weighed, then its USD counts at its face amount; with nothing posted every figure is 0', () => {
    const usd = { ...row('USD', 100, 100, 90), booked_balance: '90', booked_face_balance: '100' };
    expect(decideRecordFigures([{ partner_id: 1, currency: 'USD', accounting: 'EUR', rows: [usd] }])[0]?.balance).toBe('100');
    expect(decideRecordFigures([{ partner_id: 2, currency: null, accounting: 'EUR', rows: [] }])).toEqual([
      { partner_id: 2, balance: '0', receivable: '0', committed: '0' },
    ]);
  });
});
