import pg from 'pg';
import { parseTimestamptz } from './pg-types';

// node-pg's own reader, which parseTimestamptz must agree with on every input (captured before any install).
const general = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ) as (text: string) => Date;

describe('reading a timestamptz', () => {
  it('reads the ISO shapes PostgreSQL writes to the millisecond, microseconds truncated', () => {
    expect(parseTimestamptz('2026-11-22 22:46:43.123456+00').toISOString()).toBe('2026-11-22T22:46:43.123Z');
    expect(parseTimestamptz('2026-11-22 22:46:43.5+00').toISOString()).toBe('2026-11-22T22:46:43.500Z');
    expect(parseTimestamptz('2026-11-22 22:46:43+00').toISOString()).toBe('2026-11-22T22:46:43.000Z');
    expect(parseTimestamptz('2026-11-23 04:16:43.999999+05:30').toISOString()).toBe('2026-11-22T22:46:43.999Z');
    expect(parseTimestamptz('2026-11-22 19:16:43-03:30').toISOString()).toBe('2026-11-22T22:46:43.000Z');
    expect(parseTimestamptz('2026-01-01 00:00:00-10').toISOString()).toBe('2026-01-01T10:00:00.000Z');
  });

  it('agrees with node-pg on the shapes it leaves to node-pg: BC, infinity, short years, offsets with seconds', () => {
    for (const text of [
      '0044-03-15 12:00:00+00 BC',
      '0099-12-31 23:59:59+00',
      '1883-11-18 12:00:00-07:52:58',
      '12026-01-01 00:00:00+00',
      'infinity',
      '-infinity',
    ]) {
      expect(String(parseTimestamptz(text))).toBe(String(general(text)));
    }
  });

  it('agrees with node-pg on random instants, fractions and offsets', () => {
    const pad = (n: number, width = 2) => String(n).padStart(width, '0');
    let seed = 42;
    const random = (below: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % below;
    };
    for (let i = 0; i < 2000; i++) {
      const fraction = ['', `.${pad(random(10), 1)}`, `.${pad(random(1000), 3)}`, `.${pad(random(1_000_000), 6)}`][random(4)];
      const offsetHours = random(15);
      const offset = `${random(2) ? '+' : '-'}${pad(offsetHours)}${random(3) === 0 ? `:${pad([0, 30, 45][random(3)] as number)}` : ''}`;
      const text = `${1900 + random(200)}-${pad(1 + random(12))}-${pad(1 + random(28))} ${pad(random(24))}:${pad(random(60))}:${pad(random(60))}${fraction}${offset}`;
      expect([text, parseTimestamptz(text).getTime()]).toEqual([text, general(text).getTime()]);
    }
  });
});
