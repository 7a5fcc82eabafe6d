import { settingsReading, taxPolicyOf, timeZoneOf, todayOf, nowIn, type OrganizationSettings } from './organization-settings';

const settings = (over: Partial<OrganizationSettings> = {}): OrganizationSettings => ({
  org_id: 1,
  time_zone: null,
  default_currency: null,
  rounding: null,
  cash_rounding: null,
  version: 1,
  ...over,
});

describe('taxPolicyOf', () => {
  it('given an unseen profile, answers line rounding, no cash rounding and no accounting currency', () => {
    expect(taxPolicyOf(undefined)).toEqual({ rounding: 'line', cash_rounding: null, accounting_currency: null });
  });

  it('given a row, answers its rounding, cash rounding and default currency as the accounting currency', () => {
    expect(taxPolicyOf(settings({ rounding: 'document', cash_rounding: '0.0500', default_currency: 'EUR' }))).toEqual({
      rounding: 'document',
      cash_rounding: '0.0500',
      accounting_currency: 'EUR',
    });
  });
});

describe('timeZoneOf', () => {
  it('given a known zone, answers it', () => {
    expect(timeZoneOf(settings({ time_zone: 'Pacific/Auckland' }))).toBe('Pacific/Auckland');
  });

  it('given no row, no zone, or a zone this runtime does not know, answers null (UTC)', () => {
    expect(timeZoneOf(undefined)).toBeNull();
    expect(timeZoneOf(settings())).toBeNull();
    expect(timeZoneOf(settings({ time_zone: 'Mars/Olympus_Mons' }))).toBeNull();
  });
});

describe('todayOf', () => {
  const instant = new Date('2026-03-10T23:30:00Z');

  it("when the instant is past midnight in the organization's zone, answers the next day", () => {
    expect(todayOf(settings({ time_zone: 'Europe/Paris' }), instant)).toBe('2026-03-11');
  });

  it('when the organization has no known zone, answers the UTC date', () => {
    expect(todayOf(undefined, instant)).toBe('2026-03-10');
    expect(todayOf(settings({ time_zone: 'Mars/Olympus_Mons' }), instant)).toBe('2026-03-10');
  });

  it('agrees with nowIn of its zone', () => {
    const row = settings({ time_zone: 'America/Los_Angeles' });
    expect(todayOf(row, instant)).toBe(nowIn('America/Los_Angeles', instant).date);
  });
});

describe('settingsReading', () => {
  const instant = new Date('2026-03-10T23:30:00Z');

  it('given a row, answers its tax policy, zone, today and now, and keeps the row', () => {
    const row = settings({ time_zone: 'Europe/Paris', rounding: 'document', cash_rounding: '0.0500', default_currency: 'EUR' });
    const reading = settingsReading(row, { held: true });
    expect(reading.row).toBe(row);
    expect(reading.held).toBe(true);
    expect(reading.taxPolicy).toEqual(taxPolicyOf(row));
    expect(reading.timeZone).toBe('Europe/Paris');
    expect(reading.today(instant)).toBe('2026-03-11');
    expect(reading.now(instant)).toEqual(nowIn('Europe/Paris', instant));
  });

  it('given no row (null from a load statement, or undefined), answers the defaults of an unseen profile, not held unless told', () => {
    for (const row of [null, undefined]) {
      const reading = settingsReading(row);
      expect(reading.row).toBeUndefined();
      expect(reading.held).toBe(false);
      expect(reading.taxPolicy).toEqual({ rounding: 'line', cash_rounding: null, accounting_currency: null });
      expect(reading.timeZone).toBeNull();
      expect(reading.today(instant)).toBe('2026-03-10');
    }
  });

  it('given a zone this runtime does not know, reads its clock in UTC, as todayOf does', () => {
    const row = settings({ time_zone: 'Mars/Olympus_Mons' });
    expect(settingsReading(row).today(instant)).toBe(todayOf(row, instant));
    expect(settingsReading(row).now(instant).dateTime).toBe('2026-03-10T23:30:00');
  });
});
