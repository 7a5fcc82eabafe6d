import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { einvoiceFailures, preparePeppolRules, prepareRules, validate } from './einvoice';

/**
 * The Peppol BIS Billing 3.0 rules run by the e-invoice tests can fail and can pass: an EN 16931
 * document that is no Peppol document (no Peppol CustomizationID or ProfileID, no electronic
 * addresses, no buyer reference) fails the rules that say so, and every official Peppol example
 * passes them, EN 16931 and the UBL XSD.
 */
const examples = join(__dirname, '..', 'einvoice-examples');

beforeAll(() => {
  prepareRules();
  preparePeppolRules(['ubl', 'cii']);
}, 600_000);

test('an EN 16931 example that is no Peppol document fails the Peppol rules that say why', () => {
  const xml = readFileSync(join(examples, 'ubl', 'ubl-tc434-example1.xml'), 'utf8');
  const fatal = new Set(
    validate('peppol-ubl', xml)
      .filter((f) => f.flag === 'fatal')
      .map((f) => f.id),
  );
  for (const rule of ['PEPPOL-EN16931-R001', 'PEPPOL-EN16931-R003', 'PEPPOL-EN16931-R004', 'PEPPOL-EN16931-R007', 'PEPPOL-EN16931-R020'])
    expect(fatal).toContain(rule);
});

const peppolExamples = readdirSync(join(examples, 'peppol')).filter((f) => f.endsWith('.xml'));

test.each(peppolExamples)('the official Peppol example %s passes EN 16931, the Peppol rules and the UBL XSD', async (file) => {
  const xml = readFileSync(join(examples, 'peppol', file), 'utf8');
  expect(await einvoiceFailures('ubl', xml, { peppol: true })).toBe('');
});

test('a CII document is checked by the Peppol CII rules', () => {
  const xml = readFileSync(join(examples, 'cii', 'CII_example1.xml'), 'utf8');
  // EN 16931's own example carries no Peppol specification identifier (PEPPOL-EN16931-R004).
  expect(validate('peppol-cii', xml).map((f) => f.id)).toContain('PEPPOL-EN16931-R004');
});
