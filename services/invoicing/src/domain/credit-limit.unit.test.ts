import { invoicing } from '@bo/contracts';
import { dec, Money, sum } from '@bo/kernel';
import fc from 'fast-check';
import { customerExposure, decideCreditLimit, ownReceivable, type ExposureDocument } from './credit-limit';

describe('credit check', () => {
  it('sums what is due on posted documents by their effect on the receivable: vendor documents neither add nor take off', () => {
    const receivable = ownReceivable([
      { invoicetype: 'invoiceout', due: '258.75' },
      { invoicetype: 'creditout', due: '15.00' },
      { invoicetype: 'invoicein', due: '100.10' },
      { invoicetype: 'creditin', due: '0.05' },
    ]);
    expect(receivable.toFixed(2)).toBe('243.75');
    expect(ownReceivable([{ invoicetype: 'creditin', due: '500' }]).toFixed(2)).toBe('0.00');
    expect(ownReceivable([]).toFixed(2)).toBe('0.00');
  });

  it("commits only converted drafts and proformas that become customer invoices (a `both` partner's vendor side commits nothing)", () => {
    const doc = (invoicetype: invoicing.InvoiceType, invoicestatus: invoicing.InvoiceStatus, total: string, converted = true) => ({
      invoicetype,
      invoicestatus,
      converted,
      total,
      due: total,
    });
    const exposure = customerExposure([
      doc('invoiceout', 'draft', '100.00'),
      doc('invoiceout', 'proforma', '20.50'),
      doc('creditout', 'draft', '30.00'),
      doc('invoicein', 'draft', '400.00'),
      doc('creditin', 'proforma', '7.00'),
      doc('invoiceout', 'draft', '999.00', false),
      doc('invoiceout', 'cancelled', '55.00'),
      doc('invoiceout', 'open', '80.00'),
      doc('creditin', 'open', '12.00'),
      doc('invoicein', 'open', '1000.00'),
    ]);
    expect([exposure.committed.toFixed(2), exposure.receivable.toFixed(2)]).toEqual(['120.50', '80.00']);
  });

  const eur = (amount: string | number) => ({ money: Money.of(amount, 'EUR'), rate: null });
  const inEur = { creditLimit: Money.of(1000, 'EUR'), accounting: 'EUR', limitRate: null, rateOf: () => null };
  /** One currency, as the check always weighed it: the partners service's receivable, this service's, committed, the sale. */
  const single = (limit: number, partners: number, own: number, total: string | number, committed?: string) =>
    decideCreditLimit(
      { ...inEur, creditLimit: Money.of(limit, 'EUR') },
      {
        partnersReceivable: [Money.of(partners, 'EUR')],
        posted: own ? [eur(own)] : [],
        committed: committed ? [eur(committed)] : [],
        document: eur(total),
      },
    );

  it('allows a sale up to the limit exactly and refuses a cent more', () => {
    expect(single(1000, 800, 0, '200.00').allowed).toBe(true);
    const over = single(1000, 800, 0, '200.01');
    expect([over.allowed, over.available.toString(), over.over.toString()]).toEqual([false, '200.00 EUR', '0.01 EUR']);
  });

  it('checks against the larger balance, so a posting not yet applied by the partners ledger counts', () => {
    // The partners service still says 800; this service has posted 915 (a sale of 115 not applied yet).
    const lagging = single(1000, 800, 915, 115);
    expect([lagging.allowed, lagging.balance.toString(), lagging.available.toString()]).toEqual([false, '915.00 EUR', '85.00 EUR']);
    // And a balance the partners service has that this service cannot see counts too.
    const outside = single(1000, 950, 0, 60);
    expect([outside.allowed, outside.available.toString()]).toEqual([false, '50.00 EUR']);
  });

  it('counts what other converted quotations have committed', () => {
    const over = single(1000, 500, 0, '200.01', '300.00');
    expect([over.allowed, over.balance.toString(), over.committed.toString(), over.exposure.toString()]).toEqual([
      false,
      '500.00 EUR',
      '300.00 EUR',
      '1000.01 EUR',
    ]);
    expect(single(1000, 500, 0, '200.00', '300.00').allowed).toBe(true);
  });

  it('does not limit a partner whose limit is 0', () => {
    expect(single(0, 1e9, 1e9, 1e9).allowed).toBe(true);
  });

  it("weighs each currency in the limit's at its document's rate: 100,000 JPY at 0.0062 is 620 EUR of a 1,000 EUR limit", () => {
    const yen = { money: Money.of(100000, 'JPY'), rate: '0.0062' };
    const first = decideCreditLimit(inEur, { partnersReceivable: [], posted: [], committed: [], document: yen });
    expect([first.allowed, first.exposure.toString()]).toEqual([true, '620.00 EUR']);
    // Once posted (the partners ledger says the same, per currency): another 620 EUR passes the limit by 240 EUR.
    const second = decideCreditLimit(inEur, {
      partnersReceivable: [Money.of(100000, 'JPY')],
      posted: [yen],
      committed: [],
      document: eur('620.00'),
    });
    expect([second.allowed, second.balance.toString(), second.exposure.toString(), second.over.toString()]).toEqual([
      false,
      '620.00 EUR',
      '1240.00 EUR',
      '240.00 EUR',
    ]);
  });

  it("weighs what the partners service counts beyond this service's documents at the organization's rate, and names a rate it lacks", () => {
    const input = {
      partnersReceivable: [Money.of(150000, 'JPY')],
      posted: [{ money: Money.of(100000, 'JPY'), rate: '0.0062' }],
      committed: [],
      document: eur(0),
    };
    expect(decideCreditLimit({ ...inEur, rateOf: () => '0.006' }, input).balance.toString()).toBe('920.00 EUR');
    expect(() => decideCreditLimit(inEur, input)).toThrow('no rate of JPY to EUR');
  });

  it('for any mix of document types and statuses, exposure is what the partner will owe as a customer', () => {
    const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
    const cents = fc.integer({ min: 0, max: 10_000_000 }).map((n) => dec(n).div(100).toFixed(2));
    const document = fc
      .record({
        invoicetype: fc.constantFrom(...invoicing.invoiceTypes),
        invoicestatus: fc.constantFrom<invoicing.InvoiceStatus>('draft', 'proforma', 'open', 'paid', 'cancelled'),
        converted: fc.boolean(),
        total: cents,
        paidShare: fc.integer({ min: 0, max: 100 }),
      })
      .map(({ paidShare, ...d }): ExposureDocument => ({
        ...d,
        due:
          d.invoicestatus === 'paid'
            ? '0'
            : dec(d.total)
                .times(100 - paidShare)
                .div(100)
                .toFixed(2),
      }));
    fc.assert(
      fc.property(fc.array(document, { maxLength: 30 }), (documents) => {
        const { receivable, committed } = customerExposure(documents);
        // Said the long way: a customer invoice owed or about to be, less credit notes issued to it.
        const owedOnInvoices = sum(
          documents.filter((d) => d.invoicetype === 'invoiceout' && d.invoicestatus === 'open').map((d) => dec(d.due)),
        );
        const creditedBack = sum(
          documents.filter((d) => d.invoicetype === 'creditout' && d.invoicestatus === 'open').map((d) => dec(d.due)),
        );
        const aboutToOwe = sum(
          documents
            .filter((d) => d.invoicetype === 'invoiceout' && d.converted && ['draft', 'proforma'].includes(d.invoicestatus))
            .map((d) => dec(d.total)),
        );
        expect(receivable.toFixed(2)).toBe(owedOnInvoices.minus(creditedBack).toFixed(2));
        expect(committed.toFixed(2)).toBe(aboutToOwe.toFixed(2));
        // Whatever vendor documents and credit notes in the making a partner has, they never raise it.
        const customerOnly = documents.filter(
          (d) => d.invoicetype === 'invoiceout' || (d.invoicetype === 'creditout' && d.invoicestatus === 'open'),
        );
        const without = customerExposure(customerOnly);
        expect(receivable.plus(committed).toFixed(2)).toBe(without.receivable.plus(without.committed).toFixed(2));
      }),
      { seed, numRuns: 500 },
    );
  });
});
