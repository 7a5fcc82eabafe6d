import { parseStringId } from './ids';

describe('string ids', () => {
  it('reads positive integer keys', () => {
    expect(parseStringId('1')).toBe(1);
    expect(parseStringId('123456789012345')).toBe(123456789012345);
  });

  it('names no record for anything else', () => {
    for (const bad of ['0', '-1', '01', '1.5', 'abc', '', ' 1', '1234567890123456']) expect(parseStringId(bad)).toBeNull();
  });
});
