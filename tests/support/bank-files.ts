/**
 * Bank statements written by tests: one list of lines rendered as camt.053.001.08, MT940 and CSV,
 * so the three formats can be imported and compared.
 */
export interface TestStatementLine {
  amount: string; // signed, two decimals
  booking_date: string;
  bank_reference: string;
  end_to_end_id?: string;
  structured_reference?: string;
  text?: string;
  name?: string;
  iban?: string;
}

export interface TestStatement {
  id: string;
  sequence: number;
  iban: string;
  currency: string;
  opening: string;
  closing: string;
  date: string;
  lines: TestStatementLine[];
}

const esc = (v: string) => v.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const abs = (v: string) => v.replace(/^-/, '');
const ind = (v: string) => (v.startsWith('-') ? 'DBIT' : 'CRDT');

export function camt053(s: TestStatement): string {
  const balance = (code: string, amount: string) =>
    `<Bal><Tp><CdOrPrtry><Cd>${code}</Cd></CdOrPrtry></Tp><Amt Ccy="${s.currency}">${abs(amount)}</Amt><CdtDbtInd>${ind(amount)}</CdtDbtInd><Dt><Dt>${s.date}</Dt></Dt></Bal>`;
  const entries = s.lines.map((l) => {
    const debit = l.amount.startsWith('-');
    const role = debit ? 'Cdtr' : 'Dbtr';
    const parties =
      l.name || l.iban
        ? `<RltdPties>${l.name ? `<${role}><Pty><Nm>${esc(l.name)}</Nm></Pty></${role}>` : ''}${l.iban ? `<${role}Acct><Id><IBAN>${l.iban}</IBAN></Id></${role}Acct>` : ''}</RltdPties>`
        : '';
    const remittance =
      l.structured_reference || l.text
        ? `<RmtInf>${l.text ? `<Ustrd>${esc(l.text)}</Ustrd>` : ''}${l.structured_reference ? `<Strd><CdtrRefInf><Tp><CdOrPrtry><Cd>SCOR</Cd></CdOrPrtry><Issr>ISO</Issr></Tp><Ref>${esc(l.structured_reference)}</Ref></CdtrRefInf></Strd>` : ''}</RmtInf>`
        : '';
    return [
      '<Ntry>',
      `<Amt Ccy="${s.currency}">${abs(l.amount)}</Amt><CdtDbtInd>${ind(l.amount)}</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts>`,
      `<BookgDt><Dt>${l.booking_date}</Dt></BookgDt><ValDt><Dt>${l.booking_date}</Dt></ValDt>`,
      `<AcctSvcrRef>${esc(l.bank_reference)}</AcctSvcrRef>`,
      `<BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>${debit ? 'ICDT' : 'RCDT'}</Cd><SubFmlyCd>ESCT</SubFmlyCd></Fmly></Domn></BkTxCd>`,
      `<NtryDtls><TxDtls><Refs><EndToEndId>${esc(l.end_to_end_id ?? 'NOTPROVIDED')}</EndToEndId></Refs>`,
      `<Amt Ccy="${s.currency}">${abs(l.amount)}</Amt><CdtDbtInd>${ind(l.amount)}</CdtDbtInd>`,
      parties,
      remittance,
      '</TxDtls></NtryDtls>',
      '</Ntry>',
    ].join('');
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">',
    '<BkToCstmrStmt>',
    `<GrpHdr><MsgId>MSG-${esc(s.id)}</MsgId><CreDtTm>${s.date}T18:00:00</CreDtTm></GrpHdr>`,
    `<Stmt><Id>${esc(s.id)}</Id><ElctrncSeqNb>${s.sequence}</ElctrncSeqNb><CreDtTm>${s.date}T18:00:00</CreDtTm>`,
    `<Acct><Id><IBAN>${s.iban}</IBAN></Id><Ccy>${s.currency}</Ccy></Acct>`,
    balance('OPBD', s.opening),
    balance('CLBD', s.closing),
    ...entries,
    '</Stmt>',
    '</BkToCstmrStmt>',
    '</Document>',
    '',
  ].join('\n');
}

const mtDate = (d: string) => d.slice(2, 4) + d.slice(5, 7) + d.slice(8, 10);
const mtAmount = (v: string) => abs(v).replace('.', ',');

export function mt940(s: TestStatement): string {
  const out = [
    `:20:${s.id}`,
    `:25:${s.iban}`,
    `:28C:${s.sequence}`,
    `:60F:${s.opening.startsWith('-') ? 'D' : 'C'}${mtDate(s.date)}${s.currency}${mtAmount(s.opening)}`,
  ];
  for (const l of s.lines) {
    out.push(
      `:61:${mtDate(l.booking_date)}${l.booking_date.slice(5, 7)}${l.booking_date.slice(8, 10)}${l.amount.startsWith('-') ? 'D' : 'C'}${mtAmount(l.amount)}NTRF${l.end_to_end_id ?? 'NONREF'}//${l.bank_reference}`,
    );
    const codes = [
      l.end_to_end_id ? `/EREF/${l.end_to_end_id}` : '',
      l.iban ? `/IBAN/${l.iban}` : '',
      l.name ? `/NAME/${l.name}` : '',
      l.structured_reference ? `/REMI/STRD/SCOR/ISO/${l.structured_reference}` : l.text ? `/REMI/USTD//${l.text}` : '',
    ].join('');
    if (codes) out.push(`:86:${codes}`);
  }
  out.push(`:62F:${s.closing.startsWith('-') ? 'D' : 'C'}${mtDate(s.date)}${s.currency}${mtAmount(s.closing)}`, '-');
  return out.join('\r\n');
}

/** CSV with a header, ";" delimited, decimal comma, dates DD.MM.YYYY: the mapping below reads it. */
export const csvMapping = {
  date: 'Buchungstag',
  amount: 'Betrag',
  text: 'Verwendungszweck',
  reference: 'Referenz',
  counterparty_name: 'Name',
  counterparty_iban: 'IBAN',
  bank_reference: 'Bankreferenz',
  delimiter: ';',
  decimal_separator: ',' as const,
  date_format: 'DD.MM.YYYY',
};

export function csv(s: TestStatement): string {
  const q = (v: string | undefined) => (v === undefined ? '' : `"${v.replace(/"/g, '""')}"`);
  const rows = s.lines.map((l) =>
    [
      `${l.booking_date.slice(8, 10)}.${l.booking_date.slice(5, 7)}.${l.booking_date.slice(0, 4)}`,
      l.amount.replace('.', ','),
      q(l.text),
      q(l.structured_reference),
      q(l.name),
      q(l.iban),
      q(l.bank_reference),
    ].join(';'),
  );
  return ['Buchungstag;Betrag;Verwendungszweck;Referenz;Name;IBAN;Bankreferenz', ...rows, ''].join('\n');
}

/** The ISO 11649 creditor reference of a document number (RF, check digits, its letters and digits). */
export function creditorReference(number: string): string {
  const body = number.replace(/[^A-Za-z0-9]/g, '').toUpperCase();
  const digits = `${body}RF00`.replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55));
  let rest = 0;
  for (const d of digits) rest = (rest * 10 + Number(d)) % 97;
  return `RF${String(98 - rest).padStart(2, '0')}${body}`;
}
