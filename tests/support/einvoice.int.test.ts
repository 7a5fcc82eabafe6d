import { renderCii, renderUbl } from '../../packages/documents/src';
import { sampleDocument } from '../../packages/documents/test/fixtures';
import { einvoiceFailures, prepareRules, schemaFailures, validate, type Syntax } from './einvoice';

/**
 * The validation the e-invoice tests rely on can fail: documents broken on purpose are refused with
 * the rules and schema errors their defects break, and the same documents unbroken pass. Without
 * this, a runner whose report parsing found nothing would pass every document.
 */
let ubl = '';
let cii = '';
beforeAll(async () => {
  prepareRules();
  const doc = sampleDocument('invoice');
  [ubl, cii] = await Promise.all([renderUbl(doc), renderCii(doc)]);
}, 300_000);

const source = (syntax: Syntax) => (syntax === 'ubl' ? ubl : cii);

/** Replaces exactly one occurrence, so a defect that no longer applies fails here rather than testing an intact document. */
function breakOnce(xml: string, pattern: RegExp, replacement: string): string {
  expect(xml.match(new RegExp(pattern.source, 'g'))).toHaveLength(1);
  return xml.replace(pattern, replacement);
}

describe('an intact invoice', () => {
  test.each<Syntax>(['ubl', 'cii'])('as %s fails no rule, not even a warning, and no schema', async (syntax) => {
    expect(validate(syntax, source(syntax))).toEqual([]);
    expect(await schemaFailures(syntax, source(syntax))).toBe('');
    expect(await einvoiceFailures(syntax, source(syntax))).toBe('');
  });

  test('its CII is also a valid Factur-X EN 16931 document', async () => {
    expect(await schemaFailures('facturx', cii)).toBe('');
    expect(await einvoiceFailures('cii', cii, { facturx: true })).toBe('');
  });
});

describe('a broken invoice is refused with the rules its defect breaks', () => {
  const defects: {
    syntax: Syntax;
    defect: string;
    pattern: RegExp;
    replacement: string;
    rules: string[];
    /** What the XSD says, or null when the document stays valid against it. */
    schema: RegExp | null;
  }[] = [
    {
      syntax: 'ubl',
      defect: 'no IssueDate',
      pattern: /<cbc:IssueDate>2026-11-02<\/cbc:IssueDate>\s*<cbc:DueDate>/,
      replacement: '<cbc:DueDate>',
      rules: ['BR-03'],
      schema: /Element '\{[^}]*\}DueDate': This element is not expected\. Expected is one of \([^)]*\}IssueDate/,
    },
    {
      syntax: 'ubl',
      defect: 'no invoice number',
      pattern: /<cbc:ID>INV-000042<\/cbc:ID>\s*<cbc:IssueDate>/,
      replacement: '<cbc:IssueDate>',
      rules: ['BR-02'],
      schema: /Element '\{[^}]*\}IssueDate': This element is not expected\. Expected is one of \([^)]*\}ID/,
    },
    {
      syntax: 'ubl',
      defect: 'a total with VAT one euro off',
      pattern: /<cbc:TaxInclusiveAmount currencyID="EUR">1003\.14</,
      replacement: '<cbc:TaxInclusiveAmount currencyID="EUR">1004.14<',
      rules: ['BR-CO-15', 'BR-CO-16'],
      schema: null,
    },
    {
      syntax: 'ubl',
      defect: 'a sum of line amounts one cent off',
      pattern: /(<cac:LegalMonetaryTotal>\s*<cbc:LineExtensionAmount currencyID="EUR">)847\.07</,
      replacement: '$1847.08<',
      rules: ['BR-CO-10', 'BR-CO-13'],
      schema: null,
    },
    {
      syntax: 'cii',
      defect: 'no IssueDateTime',
      pattern: /<ram:IssueDateTime>[\s\S]*?<\/ram:IssueDateTime>/,
      replacement: '',
      rules: ['BR-03'],
      schema: /Element '\{[^}]*\}IncludedNote': This element is not expected\. Expected is \( \{[^}]*\}IssueDateTime \)/,
    },
    {
      syntax: 'cii',
      defect: 'a grand total one euro off',
      pattern: /<ram:GrandTotalAmount>1003\.14</,
      replacement: '<ram:GrandTotalAmount>1004.14<',
      rules: ['BR-CO-15', 'BR-CO-16'],
      schema: null,
    },
    {
      // The rules do not see this one: only the schema does.
      syntax: 'cii',
      defect: 'no header trade delivery',
      pattern: /<ram:ApplicableHeaderTradeDelivery\/>/,
      replacement: '',
      rules: [],
      schema:
        /Element '\{[^}]*\}ApplicableHeaderTradeSettlement': This element is not expected\. Expected is \( \{[^}]*\}ApplicableHeaderTradeDelivery \)/,
    },
  ];

  test.each(defects.map((d) => [d.syntax, d.defect, d] as const))('%s with %s', async (syntax, _defect, d) => {
    const broken = breakOnce(source(syntax), d.pattern, d.replacement);
    const failed = validate(syntax, broken);
    // Each failure is read whole: its rule, its flag, where and why.
    for (const f of failed) {
      expect(f.id).toMatch(/^[A-Z][\w.-]+$/);
      expect(f.location).toMatch(/^\//);
      expect(f.text.length).toBeGreaterThan(10);
    }
    const fatal = failed.filter((f) => f.flag === 'fatal');
    expect(fatal.map((f) => f.id).sort()).toEqual(d.rules);
    expect(failed).toEqual(fatal);

    const schema = await schemaFailures(syntax, broken);
    if (d.schema) expect(schema).toMatch(d.schema);
    else expect(schema).toBe('');

    // Both checks together, fatal rules one a line as fatalFailures prints them.
    const all = await einvoiceFailures(syntax, broken);
    expect(all).not.toBe('');
    expect(all.match(/^(?:EN 16931 rules: )?[\w.-]+ at \//gm) ?? []).toHaveLength(d.rules.length);
    for (const rule of d.rules) expect(all).toContain(`${rule} at /`);
  });

  test('BR-03 says what it wants and where', () => {
    const broken = breakOnce(ubl, /<cbc:IssueDate>2026-11-02<\/cbc:IssueDate>\s*<cbc:DueDate>/, '<cbc:DueDate>');
    expect(validate('ubl', broken)).toEqual([
      {
        id: 'BR-03',
        flag: 'fatal',
        location: expect.stringMatching(/^\/\*:Invoice/),
        text: expect.stringMatching(/Invoice issue date \(BT-2\)/),
      },
    ]);
  });

  test('a document that is not XML at all is refused by the schema check', async () => {
    expect(await schemaFailures('cii', cii.slice(0, cii.length / 2))).toMatch(/\S/);
  });
});
