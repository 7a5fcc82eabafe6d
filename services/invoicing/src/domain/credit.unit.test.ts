import { decideCredit, ownBalance } from './credit';

describe('credit check', () => {
  it('sums what is due on posted documents with the sign the partners ledger uses', () => {
    const balance = ownBalance([
      { invoicetype: 'invoiceout', due: '258.75' },
      { invoicetype: 'creditout', due: '15.00' },
      { invoicetype: 'invoicein', due: '100.10' },
      { invoicetype: 'creditin', due: '0.05' },
    ]);
    expect(balance.toFixed(2)).toBe('143.70');
    expect(ownBalance([]).toFixed(2)).toBe('0.00');
  });

  it('allows a sale up to the limit exactly and refuses a cent more', () => {
    const fits = decideCredit({ creditLimit: 1000, partnersBalance: 800, ownBalance: 0, total: '200.00' });
    expect(fits.allowed).toBe(true);
    const over = decideCredit({ creditLimit: 1000, partnersBalance: 800, ownBalance: 0, total: '200.01' });
    expect([over.allowed, over.available.toFixed(2)]).toEqual([false, '200.00']);
  });

  it('checks against the larger balance, so a posting not yet applied by the partners ledger counts', () => {
    // The partners service still says 800; this service has posted 915 (a sale of 115 not applied yet).
    const lagging = decideCredit({ creditLimit: 1000, partnersBalance: 800, ownBalance: 915, total: 115 });
    expect([lagging.allowed, lagging.balance.toFixed(2), lagging.available.toFixed(2)]).toEqual([false, '915.00', '85.00']);
    // And a balance the partners service has that this service cannot see counts too.
    const outside = decideCredit({ creditLimit: 1000, partnersBalance: 950, ownBalance: 0, total: 60 });
    expect([outside.allowed, outside.available.toFixed(2)]).toEqual([false, '50.00']);
  });

  it('counts what other converted quotations have committed', () => {
    const over = decideCredit({ creditLimit: 1000, partnersBalance: 500, ownBalance: 0, committed: '300.00', total: '200.01' });
    expect([over.allowed, over.balance.toFixed(2), over.committed.toFixed(2), over.exposure.toFixed(2)]).toEqual([
      false,
      '500.00',
      '300.00',
      '1000.01',
    ]);
    expect(decideCredit({ creditLimit: 1000, partnersBalance: 500, ownBalance: 0, committed: '300.00', total: '200.00' }).allowed).toBe(
      true,
    );
  });

  it('does not limit a partner whose limit is 0', () => {
    expect(decideCredit({ creditLimit: 0, partnersBalance: 1e9, ownBalance: 1e9, total: 1e9 }).allowed).toBe(true);
  });
});
