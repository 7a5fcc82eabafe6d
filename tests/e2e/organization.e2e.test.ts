import { createHash } from 'node:crypto';
import type { OperationNamed, RequestBody } from '@bo/client';
import { corruptRgbaPng, makePng, oversizedPng } from '../support/png';
import { refusal, startTestSystem, type TestSystem } from '../support/system';

const PNG = makePng({ width: 2, height: 2 });

type ProfileFields = Omit<RequestBody<OperationNamed<'partners.organization.set'>>, 'org_id' | 'userid'>;

/** The organization profile through the gateway with the typed client; raw HTTP for a path quirk and the OpenAPI document. */
describe('organization profile through the gateway', () => {
  let sys: TestSystem;
  beforeAll(async () => {
    // Invoicing keeps the books' currency and lock date, which the profile sets through it.
    sys = await startTestSystem({ services: ['partners', 'invoicing'] });
  });
  afterAll(async () => {
    await sys?.stop();
  });

  const clientOf = (org: 1 | 2) => (org === 1 ? sys.client : sys.clientOf(2));
  const get = async (org: 1 | 2 = 1) => (await clientOf(org).partners.organization.get({ org_id: String(org) })).organization;
  const set = (fields: ProfileFields, org: 1 | 2 = 1, idempotencyKey?: string) =>
    clientOf(org).partners.organization.set({ org_id: String(org), userid: 'u1', ...fields }, { idempotencyKey });

  it('answers an empty profile before one is set', async () => {
    // raw: sent with a trailing slash, a path quirk the gateway accepts
    const r = await sys.post('/organization/getprofile/', { org_id: '1' });
    expect(r).toMatchObject({ httpStatus: 200, statusCode: 200 });
    expect(r.body.organization).toEqual({
      org_id: 1,
      version: 0,
      legal_name: null,
      trading_name: null,
      address_line1: null,
      address_line2: null,
      city: null,
      postal_code: null,
      country: null,
      vat_id: null,
      company_id: null,
      email: null,
      phone: null,
      iban: null,
      bic: null,
      default_currency: null,
      time_zone: null,
      rounding: 'line',
      cash_rounding: null,
      lock_date: null,
      peppol_id: null,
      logo_png: null,
      logo_sha256: null,
      logo_bytes: null,
      updated_at: null,
    });
    expect(await get()).toEqual(r.body.organization);
  });

  it('sets every field, normalized, reads it back, and replays a retried set without a second version', async () => {
    const fields = {
      legal_name: 'Widgets Europe SAS',
      trading_name: 'Widgets',
      address_line1: '10 rue de la Paix',
      address_line2: '2e étage',
      city: 'Paris',
      postal_code: '75002',
      country: 'fr',
      vat_id: 'FR40303265045',
      company_id: '303 265 045',
      email: 'compta@widgets.test',
      phone: '+33 1 00 00 00 00',
      iban: 'FR14 2004 1010 0505 0001 3M02 606',
      bic: 'BNPAFRPP',
      default_currency: 'eur',
      time_zone: 'Europe/Paris',
      rounding: 'document' as const,
      cash_rounding: 0.05,
      lock_date: '2025-12-31',
      peppol_id: ' 0009:30326504500012 ',
      logo_png: PNG.toString('base64'),
    };
    const first = await set(fields, 1, 'profile-1');
    expect(first.organization).toEqual({
      ...fields,
      org_id: 1,
      version: 1,
      country: 'FR',
      default_currency: 'EUR',
      iban: 'FR1420041010050500013M02606',
      peppol_id: '0009:30326504500012',
      logo_sha256: createHash('sha256').update(PNG).digest('hex'),
      logo_bytes: PNG.length,
      updated_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/),
    });
    const again = await set(fields, 1, 'profile-1');
    expect(again).toEqual(first);
    expect(await get()).toEqual(first.organization);
  });

  it('changes only the fields sent; null or "" clears one', async () => {
    const before = await get();
    const r = await set({ trading_name: '', logo_png: null, time_zone: 'America/Los_Angeles' });
    expect(r.organization).toEqual({
      ...before,
      trading_name: null,
      logo_png: null,
      logo_sha256: null,
      logo_bytes: null,
      time_zone: 'America/Los_Angeles',
      version: before.version + 1,
      updated_at: expect.any(String),
    });
  });

  it('refuses invalid codes, a bad IBAN checksum and anything but a PNG of at most 256 kB, naming the field and changing nothing', async () => {
    const before = await get();
    const cases: Array<[ProfileFields, string]> = [
      [{ country: 'EU' }, 'country'],
      [{ default_currency: 'XYZ' }, 'default_currency'],
      [{ time_zone: 'Europe/Atlantis' }, 'time_zone'],
      [{ time_zone: 'GMT+2' }, 'time_zone'],
      [{ iban: 'FR14 2004 1010 0505 0001 3M02 607' }, 'iban'],
      [{ bic: 'BNPA1234' }, 'bic'],
      [{ peppol_id: '0208:0123456789' }, 'peppol_id'],
      [{ peppol_id: 'EM:compta@widgets.test' }, 'peppol_id'],
      [{ email: 'compta@' }, 'email'],
      [{ legal_name: 'x'.repeat(201) }, 'legal_name'],
      [{ logo_png: Buffer.from('<svg/>').toString('base64') }, 'logo_png'],
      [{ logo_png: 'not base64 at all' }, 'logo_png'],
      [{ logo_png: Buffer.concat([PNG, Buffer.alloc(256 * 1024)]).toString('base64') }, 'logo_png'],
      [{ logo_png: corruptRgbaPng.toString('base64') }, 'logo_png'],
      [{ logo_png: oversizedPng.toString('base64') }, 'logo_png'],
    ];
    for (const [fields, field] of cases) {
      const refused = await refusal(set(fields));
      expect(refused).toMatchObject({ status: 400, code: 'validation_failed', errors: [{ field }] });
      expect(refused.message).toContain(field);
    }
    expect(await get()).toEqual(before);
  });

  it("keeps each organization's profile to itself", async () => {
    expect((await set({ legal_name: 'Second Org Ltd', country: 'GB' }, 2)).organization).toMatchObject({
      org_id: 2,
      legal_name: 'Second Org Ltd',
      country: 'GB',
    });
    expect((await get(2)).legal_name).toBe('Second Org Ltd');
    expect((await get(1)).legal_name).toBe('Widgets Europe SAS');
    // Org 1's key cannot read or write org 2's profile.
    expect(await refusal(sys.client.partners.organization.get({ org_id: '2' }))).toMatchObject({ status: 403 });
    expect(await refusal(sys.client.partners.organization.set({ org_id: '2', legal_name: 'Hijack' }))).toMatchObject({ status: 403 });
    expect((await get(2)).legal_name).toBe('Second Org Ltd');
  });

  // raw: the document itself is what is checked
  it('is described in the OpenAPI document', async () => {
    const doc = (await (await fetch(`${sys.url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/organization/getprofile', '/organization/setprofile']));
  });
});
