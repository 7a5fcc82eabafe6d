import { cleanSku, skuKey } from './sku';

describe('sku keys', () => {
  it('folds case and surrounding blanks', () => {
    expect(skuKey(' Ab-1 ')).toBe('ab-1');
    expect(skuKey('AB-1')).toBe(skuKey('ab-1'));
    expect(cleanSku(' Ab-1 ')).toBe('Ab-1');
  });

  it('treats blank as no sku', () => {
    expect(skuKey('')).toBeNull();
    expect(skuKey('   ')).toBeNull();
    expect(skuKey(undefined)).toBeNull();
    expect(cleanSku(null)).toBeNull();
  });
});
