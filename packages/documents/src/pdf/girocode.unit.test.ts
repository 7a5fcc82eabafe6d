import { dec } from '@bo/kernel';
import { GIROCODE_MAX_BYTES, girocodeModules, girocodePayload, type GirocodeTransfer } from './girocode';

// The example of EPC069-12 (version 3.0, section 4.2): the Belgian Red Cross, EUR 1, purpose CHAR,
// unstructured remittance "Urgency fund", written here in version 002.
const example: GirocodeTransfer = {
  bic: 'BPOTBEB1',
  name: 'Red Cross of Belgium',
  iban: 'BE72000000001616',
  amount: dec('1'),
  purpose: 'CHAR',
  text: 'Urgency fund',
};

describe('EPC069-12 payload', () => {
  it("given the standard's example fields, then the payload is its layout in version 002 (the empty twelfth line left out)", () => {
    expect(girocodePayload(example)).toBe(
      ['BCD', '002', '1', 'SCT', 'BPOTBEB1', 'Red Cross of Belgium', 'BE72000000001616', 'EUR1.00', 'CHAR', '', 'Urgency fund'].join('\n'),
    );
  });

  it('given an RF reference, then it is the structured remittance (line 10) and no text follows it', () => {
    const payload = girocodePayload({ ...example, reference: 'RF18 5390 0754 7034', text: 'ignored' });
    expect(payload?.split('\n').slice(7)).toEqual(['EUR1.00', 'CHAR', 'RF18539007547034']);
  });

  it('given no BIC (version 002 within the EEA) and a spaced IBAN, then line 5 is empty and the IBAN is electronic', () => {
    const lines = girocodePayload({ ...example, bic: null, iban: 'be72 0000 0000 1616' })!.split('\n');
    expect(lines[4]).toBe('');
    expect(lines[6]).toBe('BE72000000001616');
  });

  it('given a name of more than 70 characters or line breaks, then it is cut to 70 on one line', () => {
    const lines = girocodePayload({ ...example, name: `Acme\nLtd ${'x'.repeat(100)}` })!.split('\n');
    expect(lines[5]).toHaveLength(70);
    expect(lines[5]!.startsWith('Acme Ltd x')).toBe(true);
  });

  it('given an amount outside 0.01 to 999,999,999.99 or with fractions of a cent, then there is no payload', () => {
    for (const amount of ['0', '0.001', '-5', '1000000000.00']) expect(girocodePayload({ ...example, amount: dec(amount) })).toBeNull();
    expect(girocodePayload({ ...example, amount: dec('999999999.99') })).toContain('EUR999999999.99');
  });

  it('given the longest fields, then the payload still fits 331 bytes; multi-byte names count as bytes', () => {
    const longest = girocodePayload({ ...example, name: 'N'.repeat(70), text: 'T'.repeat(140), purpose: 'GDSV' })!;
    expect(Buffer.byteLength(longest)).toBeLessThanOrEqual(GIROCODE_MAX_BYTES);
    expect(girocodePayload({ ...example, name: 'Ω'.repeat(70), text: 'Ж'.repeat(140) })).toBeNull();
  });

  it('given no IBAN that reads as one, then there is no payload', () => {
    expect(girocodePayload({ ...example, iban: 'not an iban' })).toBeNull();
  });

  it('given a payload, then its symbol is a QR code of a version that holds it (at least 21 modules a side)', () => {
    const symbol = girocodeModules(girocodePayload(example)!);
    expect(symbol.size).toBeGreaterThanOrEqual(21);
    // The finder pattern's corner modules are dark in every QR code.
    expect([symbol.dark(0, 0), symbol.dark(0, symbol.size - 1), symbol.dark(symbol.size - 1, 0)]).toEqual([true, true, true]);
  });
});
