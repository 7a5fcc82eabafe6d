import { computeAdjustment, defaultLocationTarget } from './adjustment';

describe('stock adjustment lines', () => {
  it('computes previous, new and change per location in the order given', () => {
    const lines = computeAdjustment(
      new Map([
        [1, '10.5000'],
        [2, '3'],
      ]),
      [
        [2, '7.25'],
        [1, '0'],
        [3, '4'],
      ],
    );
    expect(lines.map((l) => [l.locationId, l.previous.toFixed(), l.next.toFixed(), l.change.toFixed()])).toEqual([
      [2, '3', '7.25', '4.25'],
      [1, '10.5', '0', '-10.5'],
      [3, '0', '4', '4'],
    ]);
  });

  it('keeps unchanged locations with a zero change', () => {
    const [line] = computeAdjustment(new Map([[1, '5']]), [[1, '5.0000']]);
    expect(line?.change.isZero()).toBe(true);
  });

  it('adds exactly without binary floating point', () => {
    const [line] = computeAdjustment(new Map([[1, '0.1']]), [[1, '0.3']]);
    expect(line?.change.toFixed()).toBe('0.2');
  });
});

describe('editing the product total at the default location', () => {
  it('moves only the default location to reach the requested total', () => {
    // 4 elsewhere + 6 at default = 10; asking for 15 puts 11 at the default location
    expect(defaultLocationTarget('15', '10', '6')?.toFixed()).toBe('11');
    expect(defaultLocationTarget('4', '10', '6')?.toFixed()).toBe('0');
    expect(defaultLocationTarget('20', '0', '0')?.toFixed()).toBe('20');
  });

  it('refuses a total below what the other locations hold', () => {
    expect(defaultLocationTarget('3.9999', '10', '6')).toBeNull();
  });
});
