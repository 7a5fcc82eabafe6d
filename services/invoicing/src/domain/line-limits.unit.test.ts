import { lineTotalProblem } from './line-limits';

describe('line total bound', () => {
  const line = { quantity: '1', price: '1', tax_rate: '0', tax_included: false };

  it('accepts a line just under the bound, tax included', () => {
    expect(lineTotalProblem({ ...line, quantity: '999999999999.99' })).toBeNull();
    expect(lineTotalProblem({ ...line, quantity: '2', price: '499999999999.99' })).toBeNull();
  });

  it('refuses a line whose product or tax reaches the bound, naming the total', () => {
    expect(lineTotalProblem({ ...line, quantity: '1000000', price: '1000000' })).toBe(
      'quantity x price gives a line total of 1000000000000.00; a line total must be less than 1000000000000',
    );
    // Under the bound before tax, over it with 10 % on top.
    expect(lineTotalProblem({ ...line, price: '950000000000', tax_rate: '10' })).toMatch(/line total of 1045000000000\.00/);
  });
});
