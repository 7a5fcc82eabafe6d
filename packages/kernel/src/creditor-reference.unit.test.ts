import fc from 'fast-check';
import {
  buildCreditorReference,
  invoiceIdOfReference,
  invoicePaymentReference,
  isValidCreditorReference,
  parseCreditorReference,
  printCreditorReference,
} from './creditor-reference';

/** FC_SEED=<seed> replays a run; a failure names its seed. */
const SEED = Number(process.env.FC_SEED ?? Date.now() % 2_147_483_647);

function check<Ts extends unknown[]>(property: fc.IProperty<Ts>, numRuns: number): void {
  try {
    fc.assert(property, { seed: SEED, numRuns });
  } catch (err) {
    throw new Error(`seed ${SEED} (FC_SEED=${SEED} replays): ${String(err)}`, { cause: err });
  }
}

const DIGITS = '0123456789';
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const ALPHANUMERIC = DIGITS + LETTERS;
const referencePart = fc.array(fc.constantFrom(...ALPHANUMERIC), { minLength: 1, maxLength: 21 }).map((chars) => chars.join(''));

describe('ISO 11649 creditor references', () => {
  it('builds the published example RF18 5390 0754 7034 from 539007547034', () => {
    // The example of ISO 11649 and the EPC's "Guidance on the use of the structured creditor reference".
    expect(buildCreditorReference('539007547034')).toBe('RF18539007547034');
    expect(printCreditorReference('RF18539007547034')).toBe('RF18 5390 0754 7034');
  });

  it('builds and checks the other published examples (letters count A=10 … Z=35)', () => {
    // RF45G72UUR and RF6518K5 are the examples Wikipedia's ISO 11649 article gives.
    // By hand: "1" + "RF00" is 1 27 15 00 = 1271500 = 97 × 13108 + 24, check 98 − 24 = 74.
    expect(buildCreditorReference('1')).toBe('RF741');
    expect(isValidCreditorReference('RF45G72UUR')).toBe(true);
    expect(isValidCreditorReference('RF6518K5')).toBe(true);
  });

  it('reads the print form and lower case, and answers the electronic form', () => {
    expect(parseCreditorReference('RF18 5390 0754 7034')).toBe('RF18539007547034');
    expect(parseCreditorReference('rf18 5390 0754 7034')).toBe('RF18539007547034');
    expect(parseCreditorReference(' RF18539007547034 ')).toBe('RF18539007547034');
  });

  it('refuses wrong check digits, shapes and lengths', () => {
    expect(isValidCreditorReference('RF19539007547034')).toBe(false);
    expect(isValidCreditorReference('RF18539007547043')).toBe(false);
    expect(isValidCreditorReference('RF18')).toBe(false);
    expect(isValidCreditorReference('XX18539007547034')).toBe(false);
    expect(isValidCreditorReference('RF18-5390-0754-7034')).toBe(false);
    expect(isValidCreditorReference(buildCreditorReference('1'.repeat(21)) + '1')).toBe(false);
    expect(isValidCreditorReference('')).toBe(false);
    expect(() => buildCreditorReference('')).toThrow();
    expect(() => buildCreditorReference('1'.repeat(22))).toThrow();
    expect(() => buildCreditorReference('AB-1')).toThrow();
  });

  it('prints in groups of four with a shorter last group', () => {
    expect(printCreditorReference('RF741')).toBe('RF74 1');
    expect(printCreditorReference('RF45G72UUR')).toBe('RF45 G72U UR');
    expect(printCreditorReference('RF6518K5')).toBe('RF65 18K5');
  });

  it('every built reference validates, in print form too, and keeps its reference part', () => {
    check(
      fc.property(referencePart, (part) => {
        const ref = buildCreditorReference(part);
        return ref.slice(4) === part && parseCreditorReference(ref) === ref && parseCreditorReference(printCreditorReference(ref)) === ref;
      }),
      2000,
    );
  });

  it('any single-character change fails, except a digit and a letter swapped for each other in the reference part', () => {
    // MOD 97-10 catches every substitution that keeps the string's numeric length: a digit for
    // another digit, a letter for another letter, and anything in `RF` and the check digits. A
    // letter stands for two digits, so swapping a digit and a letter shifts every weight after
    // it, and about 1 in 97 such changes still checks: the standard's own limit, not ours.
    check(
      fc.property(referencePart, fc.nat(), fc.nat(), (part, at, pick) => {
        const ref = buildCreditorReference(part);
        const i = at % ref.length;
        const original = ref[i] as string;
        const sameClass = i < 4 ? ALPHANUMERIC : DIGITS.includes(original) ? DIGITS : LETTERS;
        const choices = sameClass.replace(original, '');
        const changed = ref.slice(0, i) + choices[pick % choices.length] + ref.slice(i + 1);
        return !isValidCreditorReference(changed);
      }),
      5000,
    );
  });
});

describe('invoice payment references', () => {
  it('encode the invoice id and read back to it', () => {
    expect(invoicePaymentReference(539007547034)).toBe('RF18539007547034');
    expect(invoiceIdOfReference('RF18 5390 0754 7034')).toBe(539007547034);
    expect(invoicePaymentReference(1)).toBe('RF741');
  });

  it('name no invoice when the reference is not one the system makes', () => {
    expect(invoiceIdOfReference('RF45G72UUR')).toBeNull();
    expect(invoiceIdOfReference(buildCreditorReference('0042'))).toBeNull();
    expect(invoiceIdOfReference(buildCreditorReference('9'.repeat(21)))).toBeNull();
    expect(invoiceIdOfReference('RF19539007547034')).toBeNull();
    expect(() => invoicePaymentReference(0)).toThrow();
    expect(() => invoicePaymentReference(1.5)).toThrow();
  });

  it('any single-character change to an invoice reference names no invoice at all', () => {
    // An invoice's reference part is digits only: a digit-for-digit change fails the check, a
    // letter makes it none the system made; so a mistyped reference never names another invoice.
    check(
      fc.property(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), fc.nat(), fc.nat(), (id, at, pick) => {
        const ref = invoicePaymentReference(id);
        const i = at % ref.length;
        const choices = ALPHANUMERIC.replace(ref[i] as string, '');
        const changed = ref.slice(0, i) + choices[pick % choices.length] + ref.slice(i + 1);
        return invoiceIdOfReference(ref) === id && invoiceIdOfReference(changed) === null;
      }),
      5000,
    );
  });
});
