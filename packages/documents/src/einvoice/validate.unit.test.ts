import { ruleSetsFor, svrlFindings } from './validate';

describe('ruleSetsFor', () => {
  test('EN 16931 of the syntax for every document, Peppol BIS 3.0 too when BT-24 names it', () => {
    expect(ruleSetsFor('ubl', 'urn:cen.eu:en16931:2017')).toEqual(['en16931-ubl']);
    expect(ruleSetsFor('cii', 'urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0')).toEqual(['en16931-cii']);
    expect(ruleSetsFor('ubl', 'urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0')).toEqual([
      'en16931-ubl',
      'peppol-ubl',
    ]);
    expect(ruleSetsFor('cii', 'urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0')).toEqual([
      'en16931-cii',
      'peppol-cii',
    ]);
    expect(ruleSetsFor('ubl', undefined)).toEqual(['en16931-ubl']);
  });
});

describe('svrlFindings', () => {
  test('failed asserts by flag, text unescaped and spaces folded, the rest of the report ignored', () => {
    const svrl = `<svrl:schematron-output xmlns:svrl="http://purl.oclc.org/dsdl/svrl">
      <svrl:fired-rule context="/Invoice"/>
      <svrl:failed-assert test="cbc:ID" id="BR-02" flag="fatal" location="/*:Invoice[1]">
        <svrl:text>[BR-02]-An Invoice shall have an Invoice number (BT-1).</svrl:text></svrl:failed-assert>
      <svrl:failed-assert test="x" id="PEPPOL-EN16931-R004" flag="warning" location="/a[1]"><svrl:text>a &lt;b&gt;
        &amp; c</svrl:text></svrl:failed-assert>
    </svrl:schematron-output>`;
    expect(svrlFindings(svrl)).toEqual({
      fatal: [{ rule: 'BR-02', message: '[BR-02]-An Invoice shall have an Invoice number (BT-1).', location: '/*:Invoice[1]' }],
      warnings: [{ rule: 'PEPPOL-EN16931-R004', message: 'a <b> & c', location: '/a[1]' }],
    });
  });
});
