import { organization, parseWith, type RequestOf } from '@bo/contracts';
import { decideProfileSet, type StoredProfile } from './decide-profile-set';
import type { ProfileRow } from './profile.record';

/** A set request as the contract's schema hands it to the handler. */
function request(fields: Record<string, unknown>): RequestOf<typeof organization.setProfile> {
  const parsed = parseWith(organization.setProfile.request, { org_id: 1, ...fields });
  if (!parsed.ok) throw new Error(`the example request is refused: ${JSON.stringify(parsed)}`);
  return parsed.value;
}

/** The profile of organization 1 at version 3, its books in EUR, locked to 31 January, at books version 5. */
const stored: StoredProfile = {
  row: {
    org_id: 1,
    version: 3,
    legal_name: 'Kiwi Widgets Limited',
    default_currency: 'EUR',
    lock_date: '2026-01-31',
    cash_rounding: '0.05',
  } as ProfileRow,
  booksVersion: 5,
};

describe('deciding a set of the organization profile', () => {
  it('given no profile yet, when a name is set, then the profile is that name at version 1, all else empty', () => {
    const set = decideProfileSet(1, undefined, request({ legal_name: 'First Ltd' }), undefined, 'u1');
    expect(set.columns).toEqual({ legal_name: 'First Ltd', version: 1, updated_by: 'u1' });
    expect(set.row).toMatchObject({ org_id: 1, version: 1, legal_name: 'First Ltd', default_currency: null, logo_png: null });
  });

  it("given a profile, when a set carries the books' answer at a newer version, then it keeps the books' currency and lock date", () => {
    const books = { default_currency: 'USD', lock_date: '2026-02-28', books_version: 6 };
    const set = decideProfileSet(1, stored, request({ default_currency: 'USD', lock_date: '2026-02-28' }), books, null);
    expect(set.columns).toEqual({ default_currency: 'USD', lock_date: '2026-02-28', books_version: 6, version: 4, updated_by: null });
  });

  it('given a profile holding newer books, when a set carries an older answer, then the profile keeps what the books now say', () => {
    // Another set configured the books after this one and stored first: the answer at version 4 is stale.
    const books = { default_currency: 'USD', lock_date: '2026-01-15', books_version: 4 };
    const set = decideProfileSet(1, stored, request({ default_currency: 'USD', legal_name: 'Renamed' }), books, null);
    expect(set.columns).toEqual({ legal_name: 'Renamed', books_version: 5, version: 4, updated_by: null });
    expect(set.row).toMatchObject({ default_currency: 'EUR', lock_date: '2026-01-31', legal_name: 'Renamed' });
  });

  it('given a profile in EUR, when a cash rounding finer than a cent is set, then cash_rounding is refused', () => {
    expect(() => decideProfileSet(1, stored, request({ cash_rounding: 0.005 }), undefined, null)).toThrow(
      expect.objectContaining({ code: 'validation_failed', errors: [expect.objectContaining({ field: 'cash_rounding' })] }),
    );
  });

  it('given a cash rounding of 0.05, when the books move to JPY, then it is refused on the profile as it would stand', () => {
    const books = { default_currency: 'JPY', lock_date: '2026-01-31', books_version: 6 };
    expect(() => decideProfileSet(1, stored, request({ default_currency: 'JPY' }), books, null)).toThrow(
      expect.objectContaining({ code: 'validation_failed', errors: [expect.objectContaining({ field: 'cash_rounding' })] }),
    );
  });
});
