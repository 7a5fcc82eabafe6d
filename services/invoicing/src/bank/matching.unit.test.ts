import { dec } from '@bo/kernel';
import {
  automaticMatch,
  candidatesFor,
  creditorReferenceOf,
  partnersByIbanOf,
  type MatchContext,
  type MatchLine,
  type OpenDocument,
} from './matching';
import { isValidCreditorReference } from '@bo/kernel';
import { paymentAmountOf } from './reconcile';

const doc = (over: Partial<OpenDocument> = {}): OpenDocument => ({
  id: 1,
  invoicenumber: 'INV-00001',
  invoicetype: 'invoiceout',
  partner_id: 7,
  currency: 'EUR',
  due: dec('100'),
  date: '2026-03-01',
  payment_reference: null,
  ...over,
});
const line = (over: Partial<MatchLine> = {}): MatchLine => ({
  amount: dec('100'),
  currency: 'EUR',
  structured_reference: null,
  remittance_text: null,
  end_to_end_id: null,
  counterparty_name: null,
  counterparty_iban: null,
  ...over,
});
const ctx = (over: Partial<MatchContext> = {}): MatchContext => ({ documents: [doc()], partnersByIban: new Map(), rules: [], ...over });

describe('bank matching', () => {
  it('given a document number, then its creditor reference is a valid ISO 11649 reference', () => {
    expect(creditorReferenceOf('INV-00001')).toMatch(/^RF\d{2}INV00001$/);
    expect(isValidCreditorReference(creditorReferenceOf('INV-00001'))).toBe(true);
  });

  it('given the exact structured reference and an amount at most due, when imported, then the document is matched automatically', () => {
    const ref = creditorReferenceOf('INV-00001');
    expect(automaticMatch(line({ structured_reference: ref }), ctx())?.id).toBe(1);
    expect(automaticMatch(line({ structured_reference: ref, amount: dec('40') }), ctx())?.id).toBe(1);
  });

  it('given more than due, another currency, money out, or a payer known as another partner, then nothing is matched automatically', () => {
    const ref = creditorReferenceOf('INV-00001');
    expect(automaticMatch(line({ structured_reference: ref, amount: dec('100.01') }), ctx())).toBeNull();
    expect(automaticMatch(line({ structured_reference: ref, currency: 'USD' }), ctx())).toBeNull();
    expect(automaticMatch(line({ structured_reference: ref, amount: dec('-100') }), ctx())).toBeNull();
    expect(
      automaticMatch(line({ structured_reference: ref, counterparty_iban: 'X' }), ctx({ partnersByIban: new Map([['X', 8]]) })),
    ).toBeNull();
  });

  it('given a wrong reference with the right amount and the number in the text, then it is a suggestion with both reasons, never a match', () => {
    const l = line({ structured_reference: 'RF00WRONG', remittance_text: 'paying INV-00001' });
    expect(automaticMatch(l, ctx())).toBeNull();
    expect(candidatesFor(l, ctx())).toEqual([
      {
        invoice_id: 1,
        invoicenumber: 'INV-00001',
        partner: 7,
        account: null,
        amount_due: dec('100'),
        score: 65,
        reasons: ['amount', 'invoice_number'],
      },
    ]);
  });

  it('given only an equal amount, then there is no candidate; given a rule, then the rule is one', () => {
    expect(candidatesFor(line(), ctx())).toEqual([]);
    const rules = [{ id: 1, match_text: 'fee', match_iban: null, partner_id: null, account: '6800 Bank Charges' }];
    expect(candidatesFor(line({ amount: dec('-2'), remittance_text: 'Bank FEE' }), ctx({ rules }))).toMatchObject([
      { account: '6800 Bank Charges', reasons: ['rule'], score: 20 },
    ]);
  });

  it('a fee sits between the payment and the line: added to money in, taken from money out', () => {
    expect(paymentAmountOf(dec('98'), dec('2')).toFixed()).toBe('100');
    expect(paymentAmountOf(dec('-102'), dec('2')).toFixed()).toBe('100');
  });

  it('given a payer learned as one partner, a partner listing the IBAN as its own, and a rule, then the rule wins, then the own account', () => {
    const rule = { id: 1, match_text: null, match_iban: 'DE02', partner_id: 9, account: null };
    const known = partnersByIbanOf(
      [
        { iban: 'DE01', partner_id: 5 },
        { iban: 'DE02', partner_id: 5 },
        { iban: 'DE03', partner_id: 5 },
      ],
      [
        { iban: 'DE01', partner_id: 7 },
        { iban: 'DE02', partner_id: 7 },
      ],
      [rule],
    );
    expect(Object.fromEntries(known)).toEqual({ DE01: 7, DE02: 9, DE03: 5 });
  });

  it('given an IBAN two partners both list as their own, then it names neither, and a payment from it matches no partner by IBAN', () => {
    const known = partnersByIbanOf(
      [{ iban: 'DE01', partner_id: 7 }],
      [
        { iban: 'DE01', partner_id: 7 },
        { iban: 'DE01', partner_id: 8 },
      ],
      [],
    );
    expect(known.has('DE01')).toBe(false);
    const [candidate] = candidatesFor(line({ counterparty_iban: 'DE01', remittance_text: 'INV-00001' }), ctx({ partnersByIban: known }));
    expect(candidate?.reasons).not.toContain('partner_iban');
  });
});
