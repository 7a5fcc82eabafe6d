import { carriesStock, stockLevelsProblem } from './product-rules';

describe('product rules', () => {
  it('refuses a minimum stock level above the maximum', () => {
    expect(stockLevelsProblem('10.5', '10')).toBe('min_stock_level 10.5 must not exceed max_stock_level 10');
    expect(stockLevelsProblem('10', '10')).toBeNull();
    expect(stockLevelsProblem('2', undefined)).toBeNull();
    expect(stockLevelsProblem(null, '1')).toBeNull();
  });

  it('stocks inventory products only', () => {
    expect(carriesStock('inventory')).toBe(true);
    expect(carriesStock('service')).toBe(false);
    expect(carriesStock('consumable')).toBe(false);
  });
});

describe('stock level messages', () => {
  it('writes stored decimals without trailing zeros', () => {
    expect(stockLevelsProblem('1.0000', '0.5000')).toBe('min_stock_level 1 must not exceed max_stock_level 0.5');
  });
});
