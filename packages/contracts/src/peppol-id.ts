import { TRIMMED_SPACE } from './fields';

/**
 * Peppol participant identifiers as the organization profile and partners carry them (`peppol_id`):
 * `<EAS scheme>:<identifier>`, e.g. `0208:0123456789`. A Peppol document (BIS Billing 3.0) states
 * them as the seller's and the buyer's electronic address (BT-34, BT-49: `cbc:EndpointID` with its
 * `schemeID`).
 */

/**
 * The Electronic Address Scheme codes (EAS, CEF code list) the Peppol BIS Billing 3.0 rules accept
 * (PEPPOL-EN16931-CL008): the `eaid` list of OpenPEPPOL's PEPPOL-EN16931-UBL.xsl, release 3.0.19
 * (packages/documents/einvoice-rules/peppol/xslt), copied in its order. Every one of them is also in
 * EN 16931's own list (BR-CL-25), which adds codes Peppol does not route (EM, AN …).
 * packages/contracts/src/peppol-id.unit.test.ts holds this list to the XSLT's.
 */
export const PEPPOL_EAS_CODES: readonly string[] = (
  '0002 0007 0009 0037 0060 0088 0096 0097 0106 0130 0135 0142 0151 0177 0183 0184 0188 0190 0191 0192 ' +
  '0193 0195 0196 0198 0199 0200 0201 0202 0204 0208 0209 0210 0211 0212 0213 0215 0216 0218 0221 0230 ' +
  '0235 9910 9913 9914 9915 9918 9919 9920 9922 9923 9924 9925 9926 9927 9928 9929 9930 9931 9932 9933 ' +
  '9934 9935 9936 9937 9938 9939 9940 9941 9942 9943 9944 9945 9946 9947 9948 9949 9950 9951 9952 9953 ' +
  '9957 9959 0147 0154 0158 0170 0194 0203 0205 0217 0225 0240'
).split(' ');

const easCodes: ReadonlySet<string> = new Set(PEPPOL_EAS_CODES);

/** The longest identifier (after the scheme) accepted: printable ASCII without spaces. */
export const MAX_PEPPOL_IDENTIFIER = 50;

export interface PeppolId {
  /** EAS code, four digits. */
  scheme: string;
  identifier: string;
}

/** `0208:0123456789` → { scheme, identifier }; null when it is not of that shape (the scheme unchecked). */
export function splitPeppolId(value: string): PeppolId | null {
  const m = /^([0-9]{4}):([!-~]+)$/.exec(value.trim());
  return m ? { scheme: m[1]!, identifier: m[2]! } : null;
}

const digits = (s: string) => [...s].map(Number);

/** GS1 check digit (GLN, scheme 0088): weights 3 and 1 from the right, the last digit excluded. */
function gs1(id: string): boolean {
  const d = digits(id);
  const check = d.pop()!;
  const sum = d.reverse().reduce((acc, v, i) => acc + v * (i % 2 === 0 ? 3 : 1), 0);
  return (10 - (sum % 10)) % 10 === check;
}

/** Norwegian organization number (0192): modulus 11, weights 2…7 from the right. */
function mod11(id: string): boolean {
  const d = digits(id);
  const check = d.pop()!;
  const sum = d.reverse().reduce((acc, v, i) => acc + v * ((i % 6) + 2), 0);
  return Number(id) > 0 && (11 - (sum % 11)) % 11 === check;
}

/** Belgian enterprise number (0208): the last two digits are 97 minus the first eight modulo 97. */
function mod97Be(id: string): boolean {
  return Number(id.slice(8, 10)) === 97 - (Number(id.slice(0, 8)) % 97);
}

/** Swedish organization number (0007): Luhn over the first nine digits gives the tenth. */
function luhnSe(id: string): boolean {
  const d = digits(id.slice(0, 9));
  const sum = d.reduce((acc, v, i) => {
    // From the right, the first of the nine is doubled.
    const fromRight = 8 - i;
    const x = fromRight % 2 === 0 ? v * 2 : v;
    return acc + (x % 10) + Math.floor(x / 10);
  }, 0);
  return (10 - (sum % 10)) % 10 === Number(id[9]);
}

/** Australian Business Number (0151): the first digit less one, weights 10, 1, 3, 5 … 19, modulo 89. */
function abn(id: string): boolean {
  const weights = [10, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19];
  const d = digits(id);
  d[0] = d[0]! - 1;
  return d.reduce((acc, v, i) => acc + v * weights[i]!, 0) % 89 === 0;
}

/**
 * The checks the Peppol rules make of the identifier of specific schemes, as fatal asserts
 * (PEPPOL-COMMON-R040…R050): a document with an identifier that fails one is refused by every
 * Peppol access point, so the id is refused when it is set. The Italian schemes' checks (R044 …
 * R047) are warnings in the rules and are not made here.
 */
const schemeChecks: Record<string, { rule: string; what: string; ok: (id: string) => boolean }> = {
  '0088': { rule: 'PEPPOL-COMMON-R040', what: 'a GLN: digits with a valid GS1 check digit', ok: (id) => /^[0-9]+$/.test(id) && gs1(id) },
  '0192': {
    rule: 'PEPPOL-COMMON-R041',
    what: 'a Norwegian organization number: 9 digits with a valid modulus 11 check digit',
    ok: (id) => /^[0-9]{9}$/.test(id) && mod11(id),
  },
  '0184': {
    rule: 'PEPPOL-COMMON-R042',
    what: 'a Danish CVR number: 8 digits, optionally after DK',
    ok: (id) => /^(?:DK)?[0-9]{8}$/.test(id),
  },
  '0208': {
    rule: 'PEPPOL-COMMON-R043',
    what: 'a Belgian enterprise number: 10 digits whose last two are its modulus 97 check',
    ok: (id) => /^[0-9]{10}$/.test(id) && mod97Be(id),
  },
  '0007': {
    rule: 'PEPPOL-COMMON-R049',
    what: 'a Swedish organization number: 10 digits with a valid Luhn check digit',
    ok: (id) => /^[0-9]{10}$/.test(id) && luhnSe(id),
  },
  '0151': {
    rule: 'PEPPOL-COMMON-R050',
    what: 'an Australian Business Number: 11 digits that pass its modulus 89 check',
    ok: (id) => /^[0-9]{11}$/.test(id) && abn(id),
  },
};

/** Why a value is no Peppol participant id, or undefined when it is one. */
export function peppolIdProblem(value: string): string | undefined {
  const parsed = splitPeppolId(value);
  if (!parsed) return `must be <EAS scheme>:<identifier>, four digits, a colon and the identifier without spaces (0208:0123456789)`;
  if (!easCodes.has(parsed.scheme))
    return `scheme ${parsed.scheme} is not in the Electronic Address Scheme code list Peppol accepts (0088, 0208, 9930 …)`;
  if (parsed.identifier.length > MAX_PEPPOL_IDENTIFIER) return `the identifier must have at most ${MAX_PEPPOL_IDENTIFIER} characters`;
  const check = schemeChecks[parsed.scheme];
  if (check && !check.ok(parsed.identifier)) return `scheme ${parsed.scheme} takes ${check.what} (${check.rule})`;
  return undefined;
}

/** The value's shape as a JSON Schema pattern: white space around it (trimmed), a listed scheme, a colon, the identifier. */
export const peppolIdPattern = new RegExp(
  `^${TRIMMED_SPACE}*(?:${PEPPOL_EAS_CODES.join('|')}):[!-~]{1,${MAX_PEPPOL_IDENTIFIER}}${TRIMMED_SPACE}*$`,
);
