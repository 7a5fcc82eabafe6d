import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as organization from './organization';
import * as partners from './partners';
import { PEPPOL_EAS_CODES, peppolIdPattern, peppolIdProblem, splitPeppolId } from './peppol-id';

const xslt = (name: string) => readFileSync(join(__dirname, '..', '..', 'documents', 'einvoice-rules', 'peppol', 'xslt', name), 'utf8');
const eaidOf = (text: string) => /<xsl:variable name="eaid" select="tokenize\('([^']*)'/.exec(text)?.[1]?.split(/\s+/);

describe('the EAS code list', () => {
  test('given the Peppol rules (UBL and CII), when their list is read, then it is ours, code for code', () => {
    expect(eaidOf(xslt('PEPPOL-EN16931-UBL.xsl'))).toEqual(PEPPOL_EAS_CODES);
    expect(eaidOf(xslt('PEPPOL-EN16931-CII.xsl'))).toEqual(PEPPOL_EAS_CODES);
  });

  test('given the EN 16931 rules, when their endpoint scheme list (BR-CL-25) is read, then it holds every Peppol code', () => {
    const en = readFileSync(
      join(__dirname, '..', '..', 'documents', 'einvoice-rules', 'ubl', 'xslt', 'EN16931-UBL-validation.xslt'),
      'utf8',
    );
    const list = /cbc:EndpointID\[@schemeID\][\s\S]*?contains\(' ([0-9A-Z ]+) '/.exec(en)?.[1]?.split(' ') ?? [];
    expect(list.length).toBeGreaterThan(50);
    for (const code of PEPPOL_EAS_CODES) expect(list).toContain(code);
  });
});

describe('peppolIdProblem', () => {
  test.each([
    '0208:0123456749', // Belgian enterprise number, 01234567 mod 97 = 48, 97 - 48 = 49
    '0088:5790000436057', // a GLN with its GS1 check digit
    '0192:987654325', // Norwegian organization number, modulus 11
    '0184:DK12345678',
    '0184:12345678',
    '0007:5560360793', // Swedish organization number, Luhn
    '0151:51824753556', // ABN
    '9930:DE123456789',
    '0106:12345678',
    '  0208:0123456749  ',
  ])('given %s, when checked, then it is a Peppol id', (value) => {
    expect(peppolIdProblem(value)).toBeUndefined();
    expect(peppolIdPattern.test(value)).toBe(true);
  });

  test.each([
    ['0208', 'no colon'],
    ['EM:a@b.example', 'not a four-digit scheme'],
    ['0208:', 'no identifier'],
    ['0208:0123 456749', 'a space'],
    [`9930:${'A'.repeat(51)}`, 'at most 50'],
  ])('given %s (%s), when checked, then it is refused', (value) => {
    expect(peppolIdProblem(value)).toBeDefined();
    expect(peppolIdPattern.test(value)).toBe(false);
  });

  test.each([
    ['9999:123', 'not in the Electronic Address Scheme code list'],
    ['0208:0123456789', 'PEPPOL-COMMON-R043'],
    ['0208:123456789', 'PEPPOL-COMMON-R043'],
    ['0088:5790000436058', 'PEPPOL-COMMON-R040'],
    ['0192:987654321', 'PEPPOL-COMMON-R041'],
    ['0184:DK1234567', 'PEPPOL-COMMON-R042'],
    ['0007:5560360794', 'PEPPOL-COMMON-R049'],
    ['0151:51824753557', 'PEPPOL-COMMON-R050'],
  ])('given %s, when checked, then the problem names %s', (value, named) => {
    expect(peppolIdProblem(value)).toContain(named);
  });

  test('given a value, when split, then scheme and identifier are apart', () => {
    expect(splitPeppolId(' 0208:0123456749 ')).toEqual({ scheme: '0208', identifier: '0123456749' });
    expect(splitPeppolId('x')).toBeNull();
  });
});

describe('peppol_id on the organization profile and on partners', () => {
  const fields = (result: { success: boolean; error?: { issues: { path: PropertyKey[] }[] } }) =>
    result.success ? [] : result.error!.issues.map((i) => i.path.join('.'));

  test('given a bad id, when the profile is set or a partner created or edited, then the field peppol_id is named', () => {
    for (const bad of ['0208:0123456789', '9999:1', 'no-scheme']) {
      expect(fields(organization.setProfileRequest.safeParse({ org_id: 1, peppol_id: bad }))).toEqual(['peppol_id']);
      expect(
        fields(
          partners.createPartnerRequest.safeParse({
            org_id: 1,
            action: 'create',
            partnername: 'X',
            partner_type: 'customer',
            peppol_id: bad,
          }),
        ),
      ).toEqual(['peppol_id']);
      expect(fields(partners.editPartnerRequest.safeParse({ org_id: 1, action: 'edit', partner_id: 1, peppol_id: bad }))).toEqual([
        'peppol_id',
      ]);
    }
  });

  test('given a good id, an empty one or null, when set, then it is kept trimmed or cleared', () => {
    expect(organization.setProfileRequest.parse({ org_id: 1, peppol_id: ' 0208:0123456749 ' }).peppol_id).toBe('0208:0123456749');
    expect(organization.setProfileRequest.parse({ org_id: 1, peppol_id: '' }).peppol_id).toBeNull();
    expect(partners.editPartnerRequest.parse({ org_id: 1, action: 'edit', partner_id: 1, peppol_id: null }).peppol_id).toBeNull();
  });

  test('given a record from before the field (an old event), when read, then peppol_id is null', () => {
    const { peppol_id: _, ...old } = organization.profileSummary.parse({
      org_id: 1,
      version: 1,
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
      logo_sha256: null,
      logo_bytes: null,
      updated_at: null,
    });
    expect(organization.profileSummary.parse(old).peppol_id).toBeNull();
  });
});
