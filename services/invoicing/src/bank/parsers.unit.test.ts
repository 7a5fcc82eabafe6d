import { camt053, csv, csvMapping, mt940, type TestStatement } from '../../../../tests/support/bank-files';
import { iso20022Failures } from '../../../../tests/support/iso20022';
import { parseCamt053 } from './camt053';
import { parseCsv } from './csv';
import { parseMt940 } from './mt940';
import { renderPain001 } from './pain001';
import { isValidCreditorReference } from '@bo/kernel';
import { StatementError } from './statement';
import { parseXml, XmlError } from './xml';

const statement: TestStatement = {
  id: 'STMT-2026-001',
  sequence: 1,
  iban: 'DE89370400440532013000',
  currency: 'EUR',
  opening: '1000.00',
  closing: '1074.50',
  date: '2026-03-02',
  lines: [
    {
      amount: '119.00',
      booking_date: '2026-03-02',
      bank_reference: 'B1',
      end_to_end_id: 'E2E-1',
      structured_reference: 'RF18539007547034',
      name: 'Müller & Söhne GmbH',
      iban: 'DE02120300000000202051',
    },
    { amount: '-44.50', booking_date: '2026-03-02', bank_reference: 'B2', text: 'Bank fees March', name: 'Our Bank' },
  ],
};

describe('camt.053', () => {
  it('given a statement the tests write, when checked and read, then it is valid against the XSD and every field read comes back', async () => {
    const xml = camt053(statement);
    expect(await iso20022Failures('camt.053.001.08', xml)).toBe('');
    const [read] = parseCamt053(xml);
    expect(read).toEqual({
      statement_id: 'STMT-2026-001',
      sequence: '1',
      iban: 'DE89370400440532013000',
      currency: 'EUR',
      opening_balance: '1000',
      opening_date: '2026-03-02',
      closing_balance: '1074.5',
      closing_date: '2026-03-02',
      lines: [
        {
          amount: '119',
          currency: 'EUR',
          booking_date: '2026-03-02',
          value_date: '2026-03-02',
          bank_reference: 'B1',
          end_to_end_id: 'E2E-1',
          structured_reference: 'RF18539007547034',
          remittance_text: null,
          counterparty_name: 'Müller & Söhne GmbH',
          counterparty_iban: 'DE02120300000000202051',
        },
        {
          amount: '-44.5',
          currency: 'EUR',
          booking_date: '2026-03-02',
          value_date: '2026-03-02',
          bank_reference: 'B2',
          end_to_end_id: null,
          structured_reference: null,
          remittance_text: 'Bank fees March',
          counterparty_name: 'Our Bank',
          counterparty_iban: null,
        },
      ],
    });
  });

  it('given a camt.053.001.02 (another namespace, a prefix, parties without Pty, a debit balance), when read, then the same parts are read', () => {
    const xml = `<?xml version="1.0"?>
<c:Document xmlns:c="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><c:BkToCstmrStmt><c:Stmt>
<c:Id>S2</c:Id><c:Acct><c:Id><c:IBAN>NL91 ABNA 0417 1643 00</c:IBAN></c:Id></c:Acct>
<c:Bal><c:Tp><c:CdOrPrtry><c:Cd>OPBD</c:Cd></c:CdOrPrtry></c:Tp><c:Amt Ccy="EUR">10.00</c:Amt><c:CdtDbtInd>DBIT</c:CdtDbtInd><c:Dt><c:Dt>2026-01-01</c:Dt></c:Dt></c:Bal>
<c:Bal><c:Tp><c:CdOrPrtry><c:Cd>CLBD</c:Cd></c:CdOrPrtry></c:Tp><c:Amt Ccy="EUR">15.00</c:Amt><c:CdtDbtInd>CRDT</c:CdtDbtInd><c:Dt><c:Dt>2026-01-01</c:Dt></c:Dt></c:Bal>
<c:Ntry><c:Amt Ccy="EUR">25.00</c:Amt><c:CdtDbtInd>CRDT</c:CdtDbtInd><c:BookgDt><c:Dt>2026-01-01</c:Dt></c:BookgDt><c:AcctSvcrRef>X&amp;1</c:AcctSvcrRef>
<c:NtryDtls><c:TxDtls><c:RltdPties><c:Dbtr><c:Nm>Acme</c:Nm></c:Dbtr><c:DbtrAcct><c:Id><c:IBAN>BE68539007547034</c:IBAN></c:Id></c:DbtrAcct></c:RltdPties>
<c:RmtInf><c:Ustrd><![CDATA[Invoice INV-7 <paid>]]></c:Ustrd></c:RmtInf></c:TxDtls></c:NtryDtls></c:Ntry>
</c:Stmt></c:BkToCstmrStmt></c:Document>`;
    const [read] = parseCamt053(xml);
    expect(read?.iban).toBe('NL91ABNA0417164300');
    expect(read?.opening_balance).toBe('-10');
    expect(read?.lines[0]).toMatchObject({
      bank_reference: 'X&1',
      counterparty_name: 'Acme',
      counterparty_iban: 'BE68539007547034',
      remittance_text: 'Invoice INV-7 <paid>',
    });
  });

  it('given a DOCTYPE with an entity, when read, then it is refused before any entity is expanded', () => {
    const xml = '<?xml version="1.0"?><!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]><Document><BkToCstmrStmt/></Document>';
    expect(() => parseCamt053(xml)).toThrow(
      new StatementError('not readable XML: a DOCTYPE or declaration is not allowed (no DTD, no entities)'),
    );
  });

  it('given nesting deeper than the limit or an undeclared entity, when read, then the reader refuses', () => {
    expect(() => parseXml('<a>'.repeat(70) + '</a>'.repeat(70))).toThrow(XmlError);
    expect(() => parseXml('<a>&ext;</a>')).toThrow('the entity &ext; is not allowed');
    expect(() => parseXml('<a>x</a>', { maxBytes: 3, maxDepth: 5, maxNodes: 5 })).toThrow('larger than 3 bytes');
  });

  it('given a statement without a closing balance, when read, then it is refused naming it', () => {
    const xml = camt053(statement).replace(/<Bal><Tp><CdOrPrtry><Cd>CLBD.*?<\/Bal>/, '');
    expect(() => parseCamt053(xml)).toThrow('no closing balance (Bal CLBD)');
  });
});

describe('MT940', () => {
  it('given the same lines as MT940, when read, then the lines match the camt.053 reading but for what MT940 cannot carry', () => {
    const [fromMt] = parseMt940(mt940(statement));
    const [fromCamt] = parseCamt053(camt053(statement));
    expect(fromMt).toMatchObject({
      statement_id: 'STMT-2026-001',
      sequence: '1',
      iban: statement.iban,
      opening_balance: '1000',
      closing_balance: '1074.5',
    });
    expect(fromMt?.lines).toEqual(fromCamt?.lines);
  });

  it('given German ?-subfields and a reversal, when read, then text, IBAN, name and the sign are read', () => {
    const text = [
      ':20:X',
      ':25:10020030/1234567',
      ':28C:5/1',
      ':60F:C260101EUR100,00',
      ':61:2601020102RC20,00NTRFNONREF//R1',
      ':86:166?00GUTSCHRIFT?20EREF+E1 SVWZ+Rechnung?21 R-42?31DE02120300000000202051?32Kunde GmbH',
      ':62F:C260102EUR80,00',
      '-',
    ].join('\n');
    const [read] = parseMt940(text);
    expect(read?.lines[0]).toMatchObject({
      amount: '-20',
      booking_date: '2026-01-02',
      bank_reference: 'R1',
      counterparty_iban: 'DE02120300000000202051',
      counterparty_name: 'Kunde GmbH',
      end_to_end_id: 'E1',
    });
    expect(read?.lines[0]?.remittance_text).toContain('Rechnung R-42');
  });

  it('given an entry that is not one, when read, then it is refused naming it', () => {
    expect(() => parseMt940(':20:X\n:60F:C260101EUR1,00\n:61:garbage\n:62F:C260101EUR1,00')).toThrow(
      ':61: 1: "garbage" is not an MT940 entry',
    );
  });
});

describe('CSV', () => {
  it('given the same lines as CSV with a mapping, when read, then they match the camt.053 reading', () => {
    const lines = parseCsv(csv(statement), csvMapping, 'EUR');
    const [fromCamt] = parseCamt053(camt053(statement));
    expect(lines).toEqual(fromCamt?.lines.map((l) => ({ ...l, value_date: null, end_to_end_id: null })));
  });

  it('given debit and credit columns, US dates and thousands separators, when read, then amounts are signed', () => {
    const text = 'Date,Debit,Credit,Memo\n03/15/2026,"1,250.00",,Rent\n03/16/2026,,99.5,"Invoice ""INV-1"""\n';
    const lines = parseCsv(text, { date: 'Date', debit: 'Debit', credit: 'Credit', text: 'Memo', date_format: 'MM/DD/YYYY' }, 'USD');
    expect(lines.map((l) => [l.booking_date, l.amount, l.remittance_text])).toEqual([
      ['2026-03-15', '-1250', 'Rent'],
      ['2026-03-16', '99.5', 'Invoice "INV-1"'],
    ]);
  });

  it('given a bad date or a missing column, when read, then it is refused naming the row or the mapping', () => {
    expect(() => parseCsv('d,a\n2026-02-30,1\n', { date: 'd', amount: 'a' }, 'EUR')).toThrow('row 2 date: "2026-02-30" is not a date');
    expect(() => parseCsv('d,a\n', { date: 'd', amount: 'x' }, 'EUR')).toThrow('mapping.amount: no column "x"');
  });
});

describe('pain.001.001.09', () => {
  it('given two transfers, when written, then the file is valid against the EPC SEPA profile and carries a structured reference where there is one', async () => {
    const xml = renderPain001({
      message_id: 'PAY-1',
      created_at: '2026-03-02T10:00:00',
      execution_date: '2026-03-03',
      debtor_name: 'Bäckerei & Co',
      debtor_iban: 'DE89370400440532013000',
      debtor_bic: null,
      transfers: [
        {
          end_to_end_id: 'BILL-1',
          amount: '100.5',
          creditor_name: 'Vendor One',
          creditor_iban: 'DE02120300000000202051',
          creditor_bic: 'BYLADEM1001',
          remittance: 'RF18539007547034',
        },
        {
          end_to_end_id: 'BILL-2',
          amount: '20',
          creditor_name: 'Vendor <Two>',
          creditor_iban: 'FR1420041010050500013M02606',
          creditor_bic: null,
          remittance: 'INV 2026/7',
        },
      ],
    });
    expect(await iso20022Failures('pain.001.001.09', xml)).toBe('');
    expect(xml).toContain('<CtrlSum>120.50</CtrlSum>');
    expect(xml).toContain('<Ref>RF18539007547034</Ref>');
    expect(xml).toContain('<Ustrd>INV 2026/7</Ustrd>');
  });

  it('checks ISO 11649 references by mod 97', () => {
    expect(isValidCreditorReference('RF18 5390 0754 7034')).toBe(true);
    expect(isValidCreditorReference('RF19539007547034')).toBe(false);
    expect(isValidCreditorReference('INV-1')).toBe(false);
  });
});
