import { createHash } from 'node:crypto';
import * as testing from '@bo/testkit';
import { corruptRgbaPng, makePng, oversizedPng } from '../../../tests/support/png';
import { NotAsDecided, storeAlone } from '@bo/runtime';
import { decideProfileSet } from '../src/organization/decide-profile-set';
import { profileSetAlone, readStoredProfile } from '../src/organization/profile.repository';
import { partnersService } from '../src/service';

type Reply = Awaited<ReturnType<testing.TestService['call']>>;
const body = (r: Reply) => {
  if (!r.ok) throw new Error(`expected success, got ${r.status} ${r.message}`);
  return r.body as Record<string, any>;
};

const PNG = makePng({ width: 2, height: 2 });

describe('organization profile (partners service)', () => {
  let svc: testing.TestService;
  let books: testing.BooksStub;
  beforeAll(async () => {
    svc = await testing.startTestService(partnersService);
    books = await testing.startBooksStub(svc);
  });
  afterAll(async () => {
    await books?.stop();
    await svc?.stop();
  });

  const set = (fields: Record<string, unknown>, org = 1) => svc.call('partners.organization.set', fields, org);
  const get = async (org = 1) => body(await svc.call('partners.organization.get', {}, org)).organization;

  it('reads as an empty profile before it is ever set', async () => {
    expect(await get(7)).toMatchObject({
      org_id: 7,
      version: 0,
      legal_name: null,
      time_zone: null,
      logo_png: null,
      logo_sha256: null,
      updated_at: null,
    });
  });

  it('sets the fields given, normalizes codes, and announces the profile without the logo bytes', async () => {
    const seen = await svc.collect(['partners.organization.updated']);
    const profile = body(
      await set({
        legal_name: 'Kiwi Widgets Limited',
        trading_name: 'Kiwi Widgets',
        address_line1: '1 Queen Street',
        city: 'Auckland',
        postal_code: '1010',
        country: 'nz',
        vat_id: 'NZ123456789',
        company_id: '1234567',
        email: 'accounts@kiwi.test',
        phone: '+64 9 000 0000',
        iban: 'gb82 west 1234 5698 7654 32',
        bic: 'deutdeff',
        default_currency: 'nzd',
        time_zone: 'Pacific/Auckland',
        logo_png: PNG.toString('base64'),
      }),
    ).organization;
    expect(profile).toMatchObject({
      org_id: 1,
      version: 1,
      country: 'NZ',
      iban: 'GB82WEST12345698765432',
      bic: 'DEUTDEFF',
      default_currency: 'NZD',
      time_zone: 'Pacific/Auckland',
      logo_png: PNG.toString('base64'),
      logo_sha256: createHash('sha256').update(PNG).digest('hex'),
      logo_bytes: PNG.length,
    });
    expect(await get()).toEqual(profile);
    await waitFor(() => seen.length === 1);
    const { logo_png: _bytes, ...summary } = profile;
    expect(seen[0]).toMatchObject({ type: 'partners.organization.updated', org_id: 1, data: summary });
    expect(seen[0]!.data).not.toHaveProperty('logo_png');
  });

  it('changes only what a later set names; null or "" clears; each set adds one to the version', async () => {
    const before = await get();
    const after = body(await set({ trading_name: null, phone: '', time_zone: 'Pacific/Honolulu' })).organization;
    expect(after).toEqual({
      ...before,
      trading_name: null,
      phone: null,
      time_zone: 'Pacific/Honolulu',
      version: before.version + 1,
      updated_at: expect.any(String),
    });
    const cleared = body(await set({ logo_png: null })).organization;
    expect(cleared).toMatchObject({ logo_png: null, logo_sha256: null, logo_bytes: null, version: before.version + 2 });
  });

  it('loses no set when several run at once', async () => {
    const start = (await get(3)).version;
    await Promise.all(Array.from({ length: 8 }, (_, i) => set({ phone: `+1 555 000${i}` }, 3).then(body)));
    expect((await get(3)).version).toBe(start + 8);
  });

  it('refuses bad codes, checksums and logos, naming the field, and changes nothing', async () => {
    const before = await get();
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ country: 'XX' }, 'country', /ISO 3166-1/],
      [{ default_currency: 'EURO' }, 'default_currency', /ISO 4217/],
      [{ time_zone: 'Mars/Olympus_Mons' }, 'time_zone', /IANA/],
      [{ time_zone: '+02:00' }, 'time_zone', /IANA/],
      [{ iban: 'GB82 WEST 1234 5698 7654 33' }, 'iban', /IBAN/],
      [{ bic: 'DEUT' }, 'bic', /BIC/],
      // The Peppol rules' EAS code list and their check of a Belgian enterprise number (PEPPOL-COMMON-R043).
      [{ peppol_id: '9999:123' }, 'peppol_id', /Electronic Address Scheme/],
      [{ peppol_id: '0208:0123456789' }, 'peppol_id', /PEPPOL-COMMON-R043/],
      [{ email: 'not an email' }, 'email', /email/],
      [{ logo_png: Buffer.from('GIF89a....').toString('base64') }, 'logo_png', /PNG/],
      [{ logo_png: Buffer.concat([PNG, Buffer.alloc(256 * 1024)]).toString('base64') }, 'logo_png', /at most 262144 bytes/],
      // What PDFKit would die on when drawing it: image data that does not inflate, a header claiming 30000 x 30000 pixels.
      [{ logo_png: corruptRgbaPng.toString('base64') }, 'logo_png', /image data that does not decompress/],
      [{ logo_png: oversizedPng.toString('base64') }, 'logo_png', /at most 4096 x 4096 pixels/],
    ];
    for (const [fields, field, message] of cases) {
      const reply = await set(fields);
      expect(reply).toMatchObject({ ok: false, status: 400, code: 'validation_failed', errors: [{ field }] });
      expect(!reply.ok && reply.message).toMatch(message);
    }
    expect(await get()).toEqual(before);
  });

  it("holds cash rounding to its currency's smallest amount, judged on the profile after the change", async () => {
    const org = 8;
    expect(body(await set({ default_currency: 'KWD', cash_rounding: 0.005 }, org)).organization).toMatchObject({ cash_rounding: 0.005 });
    const before = await get(org);
    // Moving to a 2-decimal currency would leave a rounding no EUR amount can be a multiple of.
    for (const fields of [{ default_currency: 'EUR' }, { cash_rounding: 0.0005 }, { default_currency: 'JPY', cash_rounding: 0.5 }]) {
      const reply = await set(fields, org);
      expect(reply).toMatchObject({ ok: false, status: 400, code: 'validation_failed', errors: [{ field: 'cash_rounding' }] });
    }
    expect(await get(org)).toEqual(before);
    expect(body(await set({ default_currency: 'EUR', cash_rounding: 0.05 }, org)).organization).toMatchObject({
      default_currency: 'EUR',
      cash_rounding: 0.05,
    });
  });

  it('judges the cash rounding of an organization that never set a profile against hundredths', async () => {
    // No profile row and no currency given: the profile is all nulls, so the rounding needs 2 decimals at most.
    const org = 14;
    expect(body(await set({ cash_rounding: 0.05, lock_date: '2026-09-25' }, org)).organization).toMatchObject({
      cash_rounding: 0.05,
      default_currency: null,
    });
    expect(await set({ cash_rounding: 0.005 }, 15)).toMatchObject({ ok: false, status: 400, errors: [{ field: 'cash_rounding' }] });
    expect(await get(15)).toMatchObject({ version: 0, cash_rounding: null });
  });

  it("sets the books' currency and lock date in invoicing first, and stores nothing when invoicing refuses", async () => {
    const org = 11;
    const asked = books.calls.length;
    body(await set({ legal_name: 'Ledger Ltd' }, org));
    // Neither books field: invoicing is not asked.
    expect(books.calls.length).toBe(asked);
    expect(body(await set({ default_currency: 'eur', lock_date: '2026-01-31' }, org)).organization).toMatchObject({
      default_currency: 'EUR',
      lock_date: '2026-01-31',
    });
    expect(books.books.get(org)).toEqual({ default_currency: 'EUR', lock_date: '2026-01-31' });
    expect(books.calls.at(-1)).toMatchObject({ default_currency: 'EUR', lock_date: '2026-01-31' });

    books.posted.add(org);
    const before = await get(org);
    const refused = await set({ default_currency: 'USD', legal_name: 'Renamed Ltd' }, org);
    expect(refused).toMatchObject({ ok: false, status: 400, code: 'validation_failed', errors: [{ field: 'default_currency' }] });
    expect(await get(org)).toEqual(before);
    // The profile's own refusal comes first: invoicing is not asked to change what would not be stored.
    const callsBefore = books.calls.length;
    expect(await set({ lock_date: '2026-02-28', cash_rounding: 0.001 }, org)).toMatchObject({ errors: [{ field: 'cash_rounding' }] });
    expect(books.calls.length).toBe(callsBefore);
    expect(books.books.get(org)?.lock_date).toBe('2026-01-31');
  });

  it('sets as one statement on an unlocked read, answering and announcing the profile as stored; a set since the read writes nothing', async () => {
    const org = 16;
    body(await set({ legal_name: 'Before Ltd' }, org));
    const read = (await readStoredProfile(svc.db, org))!;
    body(await set({ trading_name: 'Meanwhile' }, org));
    const alone = {
      ...profileSetAlone(org, decideProfileSet(org, read, { org_id: org, city: 'Stale' } as never, undefined, null), read.read),
      events: [],
      reply: {},
    };
    await expect(storeAlone(svc.db, alone, undefined, { ok: true, status: 200, body: {} })).rejects.toBeInstanceOf(NotAsDecided);
    expect(await get(org)).toMatchObject({ city: null, trading_name: 'Meanwhile', version: 2 });

    // Through the service: the reply and the event are the profile as stored, its time the row's.
    const seen = await svc.collect(['partners.organization.updated']);
    const reply = body(await set({ city: 'Wellington' }, org)).organization;
    expect(reply).toEqual(await get(org));
    expect(reply).toMatchObject({ version: 3, city: 'Wellington', trading_name: 'Meanwhile' });
    await waitFor(() => seen.some((e) => e.org_id === org));
    const { logo_png: _bytes, ...summary } = reply;
    expect(seen.find((e) => e.org_id === org)!.data).toEqual(summary);
  });

  it('keeps organizations apart', async () => {
    body(await set({ legal_name: 'Other Org' }, 2));
    expect((await get()).legal_name).toBe('Kiwi Widgets Limited');
    expect((await get(2)).legal_name).toBe('Other Org');
  });

  // Last: it stops the books stub.
  it("refuses a change of the books' settings while invoicing is down, storing nothing; the rest of the profile still sets", async () => {
    const org = 12;
    body(await set({ legal_name: 'Outage Ltd' }, org));
    const before = await get(org);
    await books.stop();
    expect(await set({ lock_date: '2026-03-31', legal_name: 'Renamed' }, org)).toMatchObject({
      ok: false,
      status: 503,
      code: 'service_unavailable',
    });
    expect(await get(org)).toEqual(before);
    expect(body(await set({ phone: '+64 9 000 0000' }, org)).organization).toMatchObject({ phone: '+64 9 000 0000', lock_date: null });
  });
});

const waitFor = (check: () => boolean | Promise<boolean>, timeoutMs?: number) => testing.waitUntil(check, { timeoutMs });
