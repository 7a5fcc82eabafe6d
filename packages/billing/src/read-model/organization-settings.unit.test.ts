import { taxPolicyOf, timeZoneOf, todayOf, nowIn, type OrganizationSettings } from './organization-settings';

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
