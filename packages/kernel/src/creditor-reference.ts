/**
 * ISO 11649 structured creditor references ("RF references"): `RF`, two check digits, and a
 * reference of 1 to 21 letters and digits, checked by ISO 7064 MOD 97-10 like an IBAN. Printed in
 * groups of four (`RF18 5390 0754 7034`); stored and sent electronically without spaces.
 *
 * Reading is forgiving where a payer's typing is harmless (spaces anywhere, lower case letters) and
 * strict everywhere else: anything but letters, digits and spaces, a wrong length or wrong check
 * digits is no reference.
 */

const REFERENCE = /^[0-9A-Z]{1,21}$/;
const ELECTRONIC = /^RF[0-9]{2}[0-9A-Z]{1,21}$/;

/** The longest reference part ISO 11649 allows. */
export const CREDITOR_REFERENCE_MAX = 21;

/** `A` = 10 … `Z` = 35, digits as they are (ISO 7064 on an alphanumeric string). */
function numeric(text: string): string {
  let out = '';
  for (const ch of text) out += /[0-9]/.test(ch) ? ch : String(ch.charCodeAt(0) - 55);
  return out;
}

/** The remainder of a long decimal string by 97, seven digits at a time (the running value never passes nine digits). */
function mod97(digits: string): number {
  let rest = 0;
  for (let i = 0; i < digits.length; i += 7) rest = Number(String(rest) + digits.slice(i, i + 7)) % 97;
  return rest;
}

/**
 * `RF` + check digits + `reference`, electronic form (no spaces). The reference is 1–21 letters or
 * digits; lower case letters are taken as upper case. Anything else throws: a reference is built
 * from data the system owns, so a bad one is a bug, not input.
 */
export function buildCreditorReference(reference: string): string {
  const body = reference.toUpperCase();
  if (!REFERENCE.test(body)) throw new Error(`not an ISO 11649 reference part (1-21 letters or digits): ${JSON.stringify(reference)}`);
  const check = 98 - mod97(numeric(`${body}RF00`));
  return `RF${String(check).padStart(2, '0')}${body}`;
}

/**
 * The electronic form of a creditor reference as typed or printed (spaces removed, upper case), or
 * null when it is not a valid one: wrong shape, length or check digits.
 */
export function parseCreditorReference(text: string): string | null {
  if (text.length > 64) return null;
  const compact = text.replace(/ /g, '').toUpperCase();
  if (!ELECTRONIC.test(compact)) return null;
  return mod97(numeric(compact.slice(4) + compact.slice(0, 4))) === 1 ? compact : null;
}

/** Whether `text` is a valid creditor reference (print form with spaces, or electronic). */
export function isValidCreditorReference(text: string): boolean {
  return parseCreditorReference(text) !== null;
}

/** The print form: the electronic form in groups of four, separated by single spaces. */
export function printCreditorReference(reference: string): string {
  return reference.replace(/ /g, '').replace(/(.{4})(?=.)/g, '$1 ');
}

/**
 * The payment reference of a customer invoice: the creditor reference of the invoice's id, in
 * decimal without leading zeros (`RF` + check digits + `1234`).
 *
 * The id, not the invoice number: ids are unique across every organization and never change,
 * whereas a number may be typed by hand as free text of any length, and two numbers can have the
 * same letters and digits (`INV-1`, `INV1`). Reading a reference back (`invoiceIdOfReference`)
 * therefore names exactly one invoice; the caller still checks it belongs to the organization.
 */
export function invoicePaymentReference(invoiceId: number): string {
  if (!Number.isSafeInteger(invoiceId) || invoiceId <= 0) throw new Error(`not an invoice id: ${invoiceId}`);
  return buildCreditorReference(String(invoiceId));
}

/**
 * The invoice id a payment reference names, or null when the text is no valid creditor reference
 * or not one `invoicePaymentReference` makes (letters, leading zeros, beyond a safe integer).
 */
export function invoiceIdOfReference(text: string): number | null {
  const ref = parseCreditorReference(text);
  if (ref === null) return null;
  const body = ref.slice(4);
  if (!/^[1-9][0-9]*$/.test(body)) return null;
  const id = Number(body);
  return Number.isSafeInteger(id) ? id : null;
}
