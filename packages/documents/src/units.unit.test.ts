import { unitCode } from './units';

describe('unitCode (UN/ECE Rec 20)', () => {
  test.each([
    ['hour', 'HUR'],
    ['Hours', 'HUR'],
    ['kg', 'KGM'],
    ['piece', 'H87'],
    ['pcs', 'H87'],
    ['unit', 'C62'],
    ['m²', 'MTK'],
    [' day ', 'DAY'],
    ['HUR', 'HUR'],
  ])('%s is %s', (unit, code) => expect(unitCode(unit)).toBe(code));

  test.each([null, undefined, '', 'bucket of paint'])('%p is C62 ("one")', (unit) => expect(unitCode(unit)).toBe('C62'));
});
