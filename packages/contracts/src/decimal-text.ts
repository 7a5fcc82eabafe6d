/**
 * A decimal's text read in one pass, never written out in full: what it is (sign, significant
 * digits, where the point falls) and how many decimal places it has, whatever its exponent says.
 * The text must match `-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?` (fields.ts checks it first).
 */
export interface DecimalText {
  /** True only for a value below zero: a zero has no sign. */
  negative: boolean;
  /** The digits from the first nonzero one to the last; empty for zero. */
  significant: string;
  /**
   * Where the point falls, counted from the first significant digit: 0.0012 has -2, 12.5 has 2.
   * An exponent too long for a double's exact integers makes it huge or ±Infinity.
   */
  point: number;
  /** Decimal places of the plain form: as written without an exponent, of the plain value with one. */
  scale: number;
  /**
   * The plain form: no exponent, no leading zeros, no sign on a zero; without an exponent the decimal
   * places as written ("007.50" is "7.50"), with one none beyond the last nonzero digit ("1.50e1" is
   * "15"). Its length is the point's and the scale's: call it only once both are known to be bounded.
   */
  plain(): string;
}

export function readDecimal(text: string): DecimalText {
  const unsigned = text.startsWith('-') ? text.slice(1) : text;
  const e = unsigned.search(/[eE]/);
  const mantissa = e < 0 ? unsigned : unsigned.slice(0, e);
  const dot = mantissa.indexOf('.');
  const intPart = dot < 0 ? mantissa : mantissa.slice(0, dot);
  const fracPart = dot < 0 ? '' : mantissa.slice(dot + 1);
  const digits = intPart + fracPart;
  const first = firstNonZero(digits);
  const negative = unsigned !== text && first >= 0;
  const sign = negative ? '-' : '';
  const significant = first < 0 ? '' : digits.slice(first, lastNonZero(digits) + 1);
  const point = first < 0 ? 0 : intPart.length - first + (e < 0 ? 0 : Number(unsigned.slice(e + 1)));

  if (e < 0) {
    const leading = firstNonZero(intPart);
    const int = leading < 0 ? '0' : intPart.slice(leading);
    return { negative, significant, point, scale: fracPart.length, plain: () => sign + int + (fracPart === '' ? '' : `.${fracPart}`) };
  }
  if (first < 0) return { negative, significant, point, scale: 0, plain: () => '0' };
  return {
    negative,
    significant,
    point,
    scale: Math.max(0, significant.length - point),
    plain: () => {
      if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${significant}`;
      if (point >= significant.length) return sign + significant + '0'.repeat(point - significant.length);
      return `${sign}${significant.slice(0, point)}.${significant.slice(point)}`;
    },
  };
}

/** Whether two decimal texts denote the same value (1.50 and 15e-1 do). */
export function sameDecimal(a: DecimalText, b: DecimalText): boolean {
  return a.negative === b.negative && a.significant === b.significant && (a.significant === '' || a.point === b.point);
}

function firstNonZero(digits: string): number {
  for (let i = 0; i < digits.length; i++) if (digits.charCodeAt(i) !== 48) return i;
  return -1;
}

function lastNonZero(digits: string): number {
  for (let i = digits.length - 1; i >= 0; i--) if (digits.charCodeAt(i) !== 48) return i;
  return -1;
}
