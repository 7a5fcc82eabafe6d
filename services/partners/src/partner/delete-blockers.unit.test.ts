import { decidePartnerDelete, deleteBlockers } from './delete-blockers';

const none = { message: '', open_documents: 0, active_contracts: 0, documents: [] };
const inEur = (balance: string) => [{ currency: 'EUR', balance }];

describe('partner delete blockers', () => {
  it('lets a partner with nothing open and a zero balance go', () => {
    expect(deleteBlockers(3, inEur('0.00'), [none, none])).toBeUndefined();
  });

  it('names a non-zero balance either way', () => {
    expect(deleteBlockers(3, inEur('12.5'), [none])).toBe('Partner 3 cannot be deleted: its balance is 12.50, not zero');
    expect(deleteBlockers(3, inEur('-0.01'), [none])).toMatch(/balance is -0.01,/);
    // A fils owed in a three-decimal currency is named as it is, not rounded to a cent (or to none).
    expect(deleteBlockers(3, inEur('0.004'), [none])).toMatch(/balance is 0.004,/);
  });

  it('weighs nothing across currencies: 620 EUR owed beside 100,000 JPY of credit is not a zero balance', () => {
    const mixed = [
      { currency: 'EUR', balance: '620' },
      { currency: 'JPY', balance: '-100000' },
      { currency: 'USD', balance: '0' },
    ];
    expect(deleteBlockers(3, mixed, [none])).toBe('Partner 3 cannot be deleted: its balance is 620.00 EUR and -100000 JPY, not zero');
    expect(deleteBlockers(3, [], [none])).toBeUndefined();
  });

  it('names the open documents and contracts of every service, and how many more there are', () => {
    const sales = {
      ...none,
      open_documents: 1,
      documents: [{ kind: 'quotation' as const, id: 1, number: 'QUO-00001', type: 'quotation', status: 'sent' }],
    };
    const invoicing = {
      ...none,
      open_documents: 3,
      active_contracts: 1,
      documents: [
        { kind: 'invoice' as const, id: 4, number: 'INV-00004', type: 'invoiceout', status: 'draft' },
        { kind: 'invoice' as const, id: 5, number: 'INV-00005', type: 'invoiceout', status: 'open' },
        { kind: 'recurring_contract' as const, id: 6, number: 'INV-00006', type: 'invoiceout', status: 'active' },
      ],
    };
    expect(deleteBlockers(9, inEur('0'), [sales, invoicing])).toBe(
      'Partner 9 cannot be deleted: it has 4 open documents: QUO-00001 (sent), INV-00004 (draft), INV-00005 (open) and 1 more; it has 1 active recurring contract: INV-00006 (active)',
    );
  });
});

describe('partner delete decision', () => {
  it('given a partner found with nothing owed and nothing open, then it is deleted', () => {
    expect(decidePartnerDelete(3, { balances: inEur('0') }, [none, none])).toBe('delete');
  });

  it('given no such partner (or one deleted already), then it is not found', () => {
    expect(() => decidePartnerDelete(3, null, [none])).toThrow(
      expect.objectContaining({ refusal: 'partners.partnerNotFound', code: 'not_found', message: 'Partner 3 not found' }),
    );
  });

  it('given a balance or an open document, then the delete is refused on partner_id, naming why', () => {
    const blocked = (message: string | RegExp) =>
      expect.objectContaining({ refusal: 'partners.deleteBlocked', code: 'validation_failed', message: expect.stringMatching(message) });
    expect(() => decidePartnerDelete(3, { balances: inEur('5') }, [none])).toThrow(blocked('its balance is 5.00, not zero'));
    const open = {
      ...none,
      open_documents: 1,
      documents: [{ kind: 'invoice' as const, id: 1, number: 'INV-1', type: 'invoiceout', status: 'validated' }],
    };
    expect(() => decidePartnerDelete(3, { balances: [] }, [open])).toThrow(blocked(/it has 1 open document: INV-1 \(validated\)/));
  });
});
