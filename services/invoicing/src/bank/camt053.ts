import { dec } from '@bo/kernel';
import { child, childrenOf, parseXml, textOf, XmlError, type XmlElement } from './xml';
import {
  checkAmount,
  checkDate,
  checkLineCount,
  MAX_STATEMENT_BYTES,
  normalizeIban,
  StatementError,
  type ParsedStatement,
  type ParsedStatementLine,
} from './statement';

/**
 * ISO 20022 camt.053 (bank-to-customer statement), versions .001.02 to .001.08, read by local names
 * whatever the namespace. One file may carry several statements (`Stmt`): each is returned.
 * A balance's sign is its CdtDbtInd (`DBIT` negative); an entry's amount is signed the same way.
 * An entry batching several transactions (several TxDtls) is one line: the bank booked one amount;
 * its references and texts are joined.
 */
export function parseCamt053(content: string): ParsedStatement[] {
  let root: XmlElement;
  try {
    root = parseXml(content, { maxBytes: MAX_STATEMENT_BYTES, maxDepth: 40, maxNodes: 1_000_000 });
  } catch (err) {
    if (err instanceof XmlError) throw new StatementError(`not readable XML: ${err.message}`);
    throw err;
  }
  const toCustomer = root.local === 'Document' ? child(root, 'BkToCstmrStmt') : undefined;
  if (!toCustomer) throw new StatementError('not a camt.053 document (no Document/BkToCstmrStmt)');
  const statements = childrenOf(toCustomer, 'Stmt');
  if (!statements.length) throw new StatementError('no statement (Stmt) in the document');
  return statements.map(readStatement);
}

function signed(amount: string, indicator: string | null, where: string): string {
  if (indicator !== 'CRDT' && indicator !== 'DBIT') throw new StatementError(`${where}: CdtDbtInd must be CRDT or DBIT`);
  const value = dec(checkAmount(amount, where));
  return (indicator === 'DBIT' ? value.negated() : value).toFixed();
}

function dateOf(element: XmlElement | undefined): string | null {
  const raw = textOf(element, 'Dt') ?? textOf(element, 'DtTm');
  return raw ? checkDate(raw, 'a date') : null;
}

function balance(stmt: XmlElement, codes: string[], where: string): { amount: string; currency: string; date: string | null } | null {
  for (const bal of childrenOf(stmt, 'Bal')) {
    const code = textOf(bal, 'Tp', 'CdOrPrtry', 'Cd');
    if (!code || !codes.includes(code)) continue;
    const amt = child(bal, 'Amt');
    if (!amt) throw new StatementError(`${where}: a balance without Amt`);
    return {
      amount: signed(amt.text, textOf(bal, 'CdtDbtInd'), where),
      currency: amt.attributes['Ccy'] ?? '',
      date: dateOf(child(bal, 'Dt')),
    };
  }
  return null;
}

function joined(values: (string | null)[]): string | null {
  const kept = [...new Set(values.filter((v): v is string => !!v))];
  return kept.length ? kept.join(' ') : null;
}

function readStatement(stmt: XmlElement, index: number): ParsedStatement {
  const where = `Stmt ${index + 1}`;
  const id = textOf(stmt, 'Id');
  if (!id) throw new StatementError(`${where}: no Id`);
  const opening = balance(stmt, ['OPBD', 'PRCD'], `${where} opening balance (OPBD)`);
  const closing = balance(stmt, ['CLBD'], `${where} closing balance (CLBD)`);
  if (!opening) throw new StatementError(`${where}: no opening balance (Bal OPBD)`);
  if (!closing) throw new StatementError(`${where}: no closing balance (Bal CLBD)`);
  const entries = childrenOf(stmt, 'Ntry');
  checkLineCount(entries.length);
  const currency = textOf(stmt, 'Acct', 'Ccy') ?? closing.currency;
  const lines = entries.map((ntry, i) => readEntry(ntry, `${where} Ntry ${i + 1}`));
  return {
    statement_id: id,
    sequence: textOf(stmt, 'ElctrncSeqNb'),
    iban: normalizeIban(textOf(stmt, 'Acct', 'Id', 'IBAN')),
    currency,
    opening_balance: opening.amount,
    opening_date: opening.date,
    closing_balance: closing.amount,
    closing_date: closing.date,
    lines,
  };
}

function party(tx: XmlElement | undefined, role: 'Dbtr' | 'Cdtr'): { name: string | null; iban: string | null } {
  const parties = child(tx, 'RltdPties');
  const who = child(parties, role);
  // .08 wraps the party in Pty; earlier versions put Nm directly under Dbtr/Cdtr.
  const name = textOf(who, 'Pty', 'Nm') ?? textOf(who, 'Nm');
  const iban = textOf(parties, `${role}Acct`, 'Id', 'IBAN');
  return { name, iban: normalizeIban(iban) };
}

function readEntry(ntry: XmlElement, where: string): ParsedStatementLine {
  const amt = child(ntry, 'Amt');
  if (!amt) throw new StatementError(`${where}: no Amt`);
  const amount = signed(amt.text, textOf(ntry, 'CdtDbtInd'), where);
  const bookingDate = dateOf(child(ntry, 'BookgDt'));
  if (!bookingDate) throw new StatementError(`${where}: no BookgDt`);
  const txs = childrenOf(ntry, 'NtryDtls').flatMap((d) => childrenOf(d, 'TxDtls'));
  // Money in names the payer (debtor); money out names the payee (creditor).
  const counterRole = amount.startsWith('-') ? 'Cdtr' : 'Dbtr';
  const parties = txs.map((tx) => party(tx, counterRole));
  const structured = txs.flatMap((tx) => childrenOf(child(tx, 'RmtInf'), 'Strd').map((s) => textOf(s, 'CdtrRefInf', 'Ref')));
  const unstructured = txs.flatMap((tx) => childrenOf(child(tx, 'RmtInf'), 'Ustrd').map((u) => u.text.trim() || null));
  return {
    amount,
    currency: amt.attributes['Ccy'] ?? '',
    booking_date: bookingDate,
    value_date: dateOf(child(ntry, 'ValDt')),
    bank_reference: textOf(ntry, 'AcctSvcrRef') ?? joined(txs.map((tx) => textOf(tx, 'Refs', 'AcctSvcrRef'))),
    end_to_end_id: joined(txs.map((tx) => textOf(tx, 'Refs', 'EndToEndId')).filter((v) => v !== 'NOTPROVIDED')),
    structured_reference: joined(structured),
    remittance_text: joined([...unstructured, textOf(ntry, 'AddtlNtryInf')]),
    counterparty_name: joined(parties.map((p) => p.name)),
    counterparty_iban: parties.find((p) => p.iban)?.iban ?? null,
  };
}
