import { duplicateOptionName, optionsKey } from './options';

describe('variant option keys', () => {
  it('ignores the order, case and surrounding blanks of options', () => {
    expect(optionsKey({ size: 'M', color: 'Red' })).toBe(optionsKey({ ' Color': 'red ', size: 'm' }));
  });

  it('tells different combinations apart', () => {
    expect(optionsKey({ size: 'M' })).not.toBe(optionsKey({ size: 'L' }));
    expect(optionsKey({})).toBe('[]');
  });

  it('finds option names that collide once folded', () => {
    expect(duplicateOptionName({ Color: 'red', 'color ': 'blue' })).toBe('color ');
    expect(duplicateOptionName({ color: 'red', size: 'M' })).toBeNull();
  });
});
