import { currentTime, formatDateTime, isTimeZone, localDate, localDateTime, setClock, today } from './time';

describe('formatting a date-time', () => {
  it('writes YYYY-MM-DDTHH:MM:SS in UTC, as toISOString does, for instants across four centuries', () => {
    for (let t = Date.UTC(1900, 0, 1); t < Date.UTC(2300, 0, 1); t += 7_919_993_123) {
      const instant = new Date(t);
      expect(formatDateTime(instant)).toBe(instant.toISOString().slice(0, 19));
    }
    expect(formatDateTime(new Date('2026-01-02T03:04:05.678Z'))).toBe('2026-01-02T03:04:05');
    expect(formatDateTime('2026-11-22T22:46:43.999Z')).toBe('2026-11-22T22:46:43');
  });

  it("keeps toISOString's answers outside years 1000-9999, and null for nothing", () => {
    expect(formatDateTime(new Date('0999-12-31T23:59:59Z'))).toBe('0999-12-31T23:59:59');
    expect(formatDateTime(new Date(Date.UTC(10000, 0, 1)))).toBe('+010000-01-01T00:00');
    expect(formatDateTime(null)).toBeNull();
    expect(formatDateTime(undefined)).toBeNull();
    expect(() => formatDateTime(new Date(Number.NaN))).toThrow(RangeError);
  });
});

describe('local date of an instant in a time zone', () => {
  // 2026-03-10T11:30:00Z: already the 11th in New Zealand (UTC+13 in March), still the 10th in Hawaii.
  const lateMorningUtc = new Date('2026-03-10T11:30:00Z');

  it('is the UTC date without a zone', () => {
    expect(localDate(lateMorningUtc)).toBe('2026-03-10');
    expect(localDate(lateMorningUtc, null)).toBe('2026-03-10');
    expect(localDate(lateMorningUtc, 'UTC')).toBe('2026-03-10');
  });

  it('moves to the next day east of UTC after local midnight', () => {
    expect(localDateTime(lateMorningUtc, 'Pacific/Auckland')).toBe('2026-03-11T00:30:00');
    expect(localDate(new Date('2026-03-10T10:59:59Z'), 'Pacific/Auckland')).toBe('2026-03-10');
    expect(localDate(new Date('2026-03-10T15:00:00Z'), 'Asia/Tokyo')).toBe('2026-03-11');
    expect(localDate(new Date('2026-03-10T14:59:59Z'), 'Asia/Tokyo')).toBe('2026-03-10');
  });

  it('stays on the previous day west of UTC before local midnight', () => {
    expect(localDateTime(new Date('2026-03-11T09:30:00Z'), 'Pacific/Honolulu')).toBe('2026-03-10T23:30:00');
    expect(localDate(new Date('2026-03-11T10:00:00Z'), 'Pacific/Honolulu')).toBe('2026-03-11');
    // Los Angeles is on daylight time (UTC-7) from 2026-03-08.
    expect(localDate(new Date('2026-03-11T06:59:59Z'), 'America/Los_Angeles')).toBe('2026-03-10');
    expect(localDate(new Date('2026-03-11T07:00:00Z'), 'America/Los_Angeles')).toBe('2026-03-11');
    // ... and on standard time (UTC-8) in January.
    expect(localDate(new Date('2026-01-15T07:30:00Z'), 'America/Los_Angeles')).toBe('2026-01-14');
  });

  it('crosses the year boundary', () => {
    expect(localDateTime(new Date('2026-12-31T11:00:00Z'), 'Pacific/Auckland')).toBe('2027-01-01T00:00:00');
    expect(localDate(new Date('2027-01-01T09:00:00Z'), 'Pacific/Honolulu')).toBe('2026-12-31');
  });

  it('refuses a zone that is not an IANA name', () => {
    expect(() => localDate(lateMorningUtc, 'Nowhere/Special')).toThrow(RangeError);
    expect(() => localDate(lateMorningUtc, '+02:00')).toThrow(RangeError);
  });
});

describe('the business clock', () => {
  afterEach(() => setClock());

  it('answers the instant a test sets, and the machine clock again after', () => {
    setClock(new Date('2030-05-06T23:59:00Z'));
    expect(currentTime().toISOString()).toBe('2030-05-06T23:59:00.000Z');
    expect(today()).toBe('2030-05-06');
    setClock();
    expect(Math.abs(currentTime().getTime() - Date.now())).toBeLessThan(60_000);
  });

  it('hands out copies, so a caller changing its Date changes nothing', () => {
    setClock(new Date('2030-05-06T00:00:00Z'));
    currentTime().setUTCFullYear(1999);
    expect(today()).toBe('2030-05-06');
  });
});

describe('time zone names', () => {
  it('knows IANA time zone names, not offsets or inventions', () => {
    for (const zone of ['Europe/Paris', 'Pacific/Auckland', 'America/Argentina/Buenos_Aires', 'UTC', 'Etc/GMT+5'])
      expect(isTimeZone(zone)).toBe(true);
    for (const zone of ['Mars/Olympus_Mons', '+02:00', 'Europe/', '', 'Europe Paris']) expect(isTimeZone(zone)).toBe(false);
  });
});
