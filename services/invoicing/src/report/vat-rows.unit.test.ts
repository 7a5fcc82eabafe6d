import { dec, sum } from '@bo/kernel';
import fc from 'fast-check';
import { vatReportFigures, type VatAccounts, type VatLineGroup } from './vat-rows';

const accounts: VatAccounts = { output: '2200 Tax Payable', input: '1400 Tax Receivable' };

const group = (g: Partial<VatLineGroup> & Pick<VatLineGroup, 'invoicetype' | 'account'>): VatLineGroup => ({
  tax_category: 'S',
  tax_rate: '20.0000',
  debit: '0',
  credit: '0',
  base: '0',
  ...g,
});

describe('the VAT report figures', () => {
  it('shows sales by category and rate, credit notes negative, and totals the VAT accounts', () => {
    const figures = vatReportFigures(
      [
        group({ invoicetype: 'invoiceout', account: accounts.output, credit: '40.00', base: '200.00' }),
        group({ invoicetype: 'creditout', account: accounts.output, debit: '4.00', base: '20.00' }),
        group({ invoicetype: 'invoiceout', account: accounts.output, tax_rate: '5.5000', credit: '0.55', base: '10.00' }),
        group({ invoicetype: 'invoicein', account: accounts.input, debit: '10.00', base: '50.00' }),
        group({ invoicetype: 'creditin', account: accounts.input, credit: '2.00', base: '10.00' }),
      ],
      accounts,
    );
    expect(figures.rows).toEqual([
      { direction: 'sales', tax_category: 'S', tax_rate: 5.5, base: 10, tax: 0.55 },
      { direction: 'sales', tax_category: 'S', tax_rate: 20, base: 180, tax: 36 },
      { direction: 'purchases', tax_category: 'S', tax_rate: 20, base: 40, tax: 8 },
    ]);
    expect(figures.totals).toEqual({ output_tax: 36.55, input_tax: 8, net_payable: 28.55 });
  });

  it('shows a reverse-charge purchase once, as input VAT, and counts it in both totals', () => {
    const figures = vatReportFigures(
      [
        group({ invoicetype: 'invoicein', account: accounts.input, tax_category: 'AE', tax_rate: '21', debit: '21.00', base: '100.00' }),
        group({ invoicetype: 'invoicein', account: accounts.output, tax_category: 'AE', tax_rate: '21', credit: '21.00', base: '100.00' }),
      ],
      accounts,
    );
    expect(figures.rows).toEqual([{ direction: 'purchases', tax_category: 'AE', tax_rate: 21, base: 100, tax: 21 }]);
    expect(figures.totals).toEqual({ output_tax: 21, input_tax: 21, net_payable: 0 });
  });

  it('keeps zero-rated and exempt bases, and lumps of several rates (no category) last', () => {
    const figures = vatReportFigures(
      [
        group({ invoicetype: 'invoiceout', account: accounts.output, tax_category: null, tax_rate: null, credit: '7.00', base: '50.00' }),
        group({ invoicetype: 'invoiceout', account: accounts.output, tax_category: 'K', tax_rate: '0', base: '300.00' }),
        group({ invoicetype: 'invoiceout', account: accounts.output, tax_category: 'E', tax_rate: '0', base: '80.00' }),
      ],
      accounts,
    );
    expect(figures.rows.map((r) => [r.tax_category, r.tax_rate, r.base, r.tax])).toEqual([
      ['E', 0, 80, 0],
      ['K', 0, 300, 0],
      [null, null, 50, 7],
    ]);
  });

  it('reads the base of a category that posted no VAT line from the revenue or expense lines tagged with it', () => {
    const figures = vatReportFigures(
      [
        group({ invoicetype: 'invoiceout', account: null, tax_category: 'Z', tax_rate: '0', credit: '40.00', base: '40.00' }),
        group({ invoicetype: 'creditout', account: null, tax_category: 'Z', tax_rate: '0', debit: '10.00', base: '10.00' }),
        group({ invoicetype: 'invoicein', account: null, tax_category: 'E', tax_rate: '0', debit: '25.00', base: '25.00' }),
        // A reverse-charge bill's expense line: its self-assessed VAT lines carry the base.
        group({ invoicetype: 'invoicein', account: null, tax_category: 'AE', tax_rate: '0', debit: '100.00', base: '100.00' }),
        group({ invoicetype: 'invoicein', account: accounts.input, tax_category: 'AE', tax_rate: '21', debit: '21.00', base: '100.00' }),
        group({ invoicetype: 'invoicein', account: accounts.output, tax_category: 'AE', tax_rate: '21', credit: '21.00', base: '100.00' }),
      ],
      accounts,
    );
    expect(figures.rows).toEqual([
      { direction: 'sales', tax_category: 'Z', tax_rate: 0, base: 30, tax: 0 },
      { direction: 'purchases', tax_category: 'E', tax_rate: 0, base: 25, tax: 0 },
      { direction: 'purchases', tax_category: 'AE', tax_rate: 21, base: 100, tax: 21 },
    ]);
    expect(figures.totals).toEqual({ output_tax: 21, input_tax: 21, net_payable: 0 });
  });

  it('answers nothing for a period without VAT', () => {
    expect(vatReportFigures([], accounts)).toEqual({ rows: [], totals: { output_tax: 0, input_tax: 0, net_payable: 0 } });
  });

  it('property: the totals are the accounts, each direction adds up to its own account, and two periods add up to their union (seed printed)', () => {
    const seed = Number(process.env.FC_SEED ?? Date.now() % 2_147_483_647);
    console.log(`VAT report figures: FC_SEED=${seed}`);
    const cents = fc.integer({ min: 0, max: 10_000_000 }).map((c) => dec(c).div(100).toFixed(2));
    const arbitraryGroup = fc
      .record({
        invoicetype: fc.constantFrom('invoiceout', 'creditout', 'invoicein', 'creditin'),
        reverseCharge: fc.boolean(),
        tax_category: fc.constantFrom('S', 'Z', 'E', 'AE', 'K', null),
        tax_rate: fc.constantFrom('0', '5.5', '10', '21', null),
        amount: cents,
        base: cents,
      })
      .map(({ invoicetype, reverseCharge, amount, ...g }): VatLineGroup[] => {
        const sales = invoicetype === 'invoiceout' || invoicetype === 'creditout';
        const credit = invoicetype === 'creditout' || invoicetype === 'creditin';
        // Sales credit output VAT and purchases debit input VAT; a credit note the other way round.
        const own = { invoicetype, account: sales ? accounts.output : accounts.input, ...g, debit: '0', credit: '0' };
        const ownLine = { ...own, [sales !== credit ? 'credit' : 'debit']: amount };
        if (sales || !reverseCharge) return [ownLine];
        const selfAssessed = { ...own, account: accounts.output, [credit ? 'debit' : 'credit']: amount };
        return [ownLine, selfAssessed];
      });
    fc.assert(
      fc.property(fc.array(arbitraryGroup, { maxLength: 30 }), fc.nat(), (drawn, cut) => {
        const groups = drawn.flat();
        const { rows, totals } = vatReportFigures(groups, accounts);
        const on = (account: string) => groups.filter((g) => g.account === account);
        const output = sum(on(accounts.output).map((g) => dec(g.credit).minus(dec(g.debit))));
        const input = sum(on(accounts.input).map((g) => dec(g.debit).minus(dec(g.credit))));
        expect([totals.output_tax, totals.input_tax, totals.net_payable]).toEqual([
          output.toNumber(),
          input.toNumber(),
          output.minus(input).toNumber(),
        ]);
        const rowTax = (direction: string) => sum(rows.filter((r) => r.direction === direction).map((r) => dec(r.tax)));
        expect(rowTax('purchases').toNumber()).toBe(input.toNumber());
        const selfAssessed = sum(
          groups
            .filter((g) => g.account === accounts.output && (g.invoicetype === 'invoicein' || g.invoicetype === 'creditin'))
            .map((g) => dec(g.credit).minus(dec(g.debit))),
        );
        expect(rowTax('sales').plus(selfAssessed).toNumber()).toBe(output.toNumber());
        // Two periods (a split of the documents, each entry wholly in one) add up to the whole's figures.
        const at = cut % (drawn.length + 1);
        const [a, b] = [vatReportFigures(drawn.slice(0, at).flat(), accounts), vatReportFigures(drawn.slice(at).flat(), accounts)];
        expect(dec(a.totals.output_tax).plus(b.totals.output_tax).toNumber()).toBe(totals.output_tax);
        expect(dec(a.totals.input_tax).plus(b.totals.input_tax).toNumber()).toBe(totals.input_tax);
        const baseOf = (figures: typeof a) => sum(figures.rows.map((r) => dec(r.base)));
        expect(baseOf(a).plus(baseOf(b)).toNumber()).toBe(baseOf({ rows, totals }).toNumber());
      }),
      { seed, numRuns: 300 },
    );
  });
});
