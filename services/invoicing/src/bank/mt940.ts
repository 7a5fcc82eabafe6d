import { dec } from '@bo/kernel';
import {
  checkAmount,
  checkLineCount,
  MAX_STATEMENT_BYTES,
  normalizeIban,
  StatementError,
  type ParsedStatement,
  type ParsedStatementLine,
} from './statement';

/**
 * SWIFT MT940 customer statements: `:20:` reference, `:25:` account (an IBAN, optionally
 * `/CCY`-suffixed), `:28C:` statement/sequence number, `:60F:`/`:60M:` opening balance, `:61:`
 * entries each followed by an optional `:86:` text, `:62F:`/`:62M:` closing balance. A file may
 * hold several statements (each from `:20:`). The `:86:` text is read in the two common structured
 * forms (ISO-style `/EREF/…/IBAN/…/NAME/…/REMI/…` codes, German `?20`…`?33` subfields) and else kept
 * whole as remittance text. Years are 20YY (YY < 80) or 19YY.
 */
export function parseMt940(content: string): ParsedStatement[] {
  if (Buffer.byteLength(content, 'utf8') > MAX_STATEMENT_BYTES) throw new StatementError(`larger than ${MAX_STATEMENT_BYTES} bytes`);
  const text = content.replace(/\r\n?/g, '\n').replace(/^\{1:[^}]*\}(\{2:[^}]*\})?(\{3:[^}]*\})?\{4:\n?/, '');
  const fields: { tag: string; value: string }[] = [];
  for (const line of text.split('\n')) {
    const tagged = /^:(\d{2}[A-Z]?):(.*)$/.exec(line);
    if (tagged) fields.push({ tag: tagged[1]!, value: tagged[2]! });
    else if (fields.length && line !== '-}' && line !== '-') fields[fields.length - 1]!.value += `\n${line}`;
  }
  const statements: ParsedStatement[] = [];
  let current: Partial<ParsedStatement> & { lines: ParsedStatementLine[] } = { lines: [] };
  let last: ParsedStatementLine | null = null;
  const finish = () => {
    if (current.statement_id === undefined) return;
    if (current.opening_balance === undefined) throw new StatementError(`statement ${current.statement_id}: no opening balance (:60F:)`);
    if (current.closing_balance === undefined) throw new StatementError(`statement ${current.statement_id}: no closing balance (:62F:)`);
    statements.push(current as ParsedStatement);
  };
  let count = 0;
  for (const { tag, value } of fields) {
    switch (tag) {
      case '20':
        finish();
        current = { statement_id: value.trim(), sequence: null, iban: null, lines: [] };
        last = null;
        break;
      case '25': {
        const account = value.trim().split('/')[0] ?? '';
        current.iban = normalizeIban(account);
        break;
      }
      case '28C':
        current.sequence = value.trim();
        break;
      case '60F':
      case '60M': {
        const b = balanceField(value, `:${tag}:`);
        Object.assign(current, { opening_balance: b.amount, opening_date: b.date, currency: b.currency });
        break;
      }
      case '62F':
      case '62M': {
        const b = balanceField(value, `:${tag}:`);
        Object.assign(current, { closing_balance: b.amount, closing_date: b.date });
        break;
      }
      case '61':
        checkLineCount(++count);
        last = entry(value, current.currency ?? '', `:61: ${current.lines.length + 1}`);
        current.lines.push(last);
        break;
      case '86':
        if (last) describe(last, value);
        break;
      default:
        break;
    }
  }
  finish();
  if (!statements.length) throw new StatementError('no MT940 statement (:20:) in the file');
  return statements;
}

function yymmdd(raw: string, where: string): string {
  const yy = Number(raw.slice(0, 2));
  const date = `${yy < 80 ? 2000 + yy : 1900 + yy}-${raw.slice(2, 4)}-${raw.slice(4, 6)}`;
  const d = new Date(`${date}T00:00:00Z`);
  if (Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== date) throw new StatementError(`${where}: "${raw}" is not a date`);
  return date;
}

function mtAmount(raw: string, where: string): string {
  return checkAmount(raw.replace(',', '.').replace(/\.$/, ''), where);
}

function balanceField(value: string, where: string): { amount: string; date: string; currency: string } {
  const m = /^([CD])(\d{6})([A-Z]{3})([\d,]+)/.exec(value.trim());
  if (!m) throw new StatementError(`${where}: "${value}" is not a balance`);
  const amount = dec(mtAmount(m[4]!, where));
  return { amount: (m[1] === 'D' ? amount.negated() : amount).toFixed(), date: yymmdd(m[2]!, where), currency: m[3]! };
}

function entry(value: string, currency: string, where: string): ParsedStatementLine {
  const [first = '', ...rest] = value.split('\n');
  const m = /^(\d{6})(\d{4})?(R?[CD])([A-Z])?([\d,]+)([NSF][A-Z0-9]{3})([^/]*)(?:\/\/(.*))?$/.exec(first.trim());
  if (!m) throw new StatementError(`${where}: "${first}" is not an MT940 entry`);
  const valueDate = yymmdd(m[1]!, where);
  // The booking date (MMDD) takes the value date's year, moved by one when they straddle a new year.
  let bookingDate = valueDate;
  if (m[2]) {
    const year = Number(valueDate.slice(0, 4));
    const month = Number(m[2].slice(0, 2));
    const valueMonth = Number(valueDate.slice(5, 7));
    const y = month === 12 && valueMonth === 1 ? year - 1 : month === 1 && valueMonth === 12 ? year + 1 : year;
    bookingDate = yymmdd(`${String(y % 100).padStart(2, '0')}${m[2]}`, where);
  }
  const amount = dec(mtAmount(m[5]!, where));
  // C credit, D debit; RC/RD reverse them.
  const debit = m[3] === 'D' || m[3] === 'RC';
  const customerRef = m[7]!.trim();
  return {
    amount: (debit ? amount.negated() : amount).toFixed(),
    currency,
    booking_date: bookingDate,
    value_date: valueDate,
    bank_reference: m[8]?.trim() || null,
    end_to_end_id: customerRef && customerRef !== 'NONREF' ? customerRef : null,
    structured_reference: null,
    remittance_text: rest.join(' ').trim() || null,
    counterparty_name: null,
    counterparty_iban: null,
  };
}

const SLASH_CODES = new Set([
  'EREF',
  'IBAN',
  'NAME',
  'REMI',
  'CNTP',
  'ORDP',
  'BENM',
  'BIC',
  'TRTP',
  'MARF',
  'CSID',
  'PREF',
  'RTRN',
  'USTD',
  'STRD',
  'CDTRREFTP',
  'CDTRREF',
  'ID',
  'ADDR',
  'ISSR',
  'CD',
]);

function describe(line: ParsedStatementLine, value: string): void {
  const text = value.replace(/\n/g, '');
  if (/^\d{3}\?/.test(text)) {
    // German structured :86: GVC?20…?29 purpose, ?30 BIC, ?31 IBAN, ?32/?33 name.
    const parts = new Map<string, string>();
    for (const m of text.slice(3).matchAll(/\?(\d{2})([^?]*)/g)) parts.set(m[1]!, (parts.get(m[1]!) ?? '') + m[2]!);
    const purpose = [...parts]
      .filter(([k]) => (k >= '20' && k <= '29') || (k >= '60' && k <= '63'))
      .map(([, v]) => v)
      .join('');
    const eref = /EREF\+(\S+)/.exec(purpose)?.[1];
    if (eref) line.end_to_end_id = eref;
    line.remittance_text = purpose.replace(/^(SVWZ\+)/, '').trim() || line.remittance_text;
    line.counterparty_iban = normalizeIban(parts.get('31')) ?? line.counterparty_iban;
    line.counterparty_name = `${parts.get('32') ?? ''}${parts.get('33') ?? ''}`.trim() || line.counterparty_name;
    return;
  }
  if (text.startsWith('/')) {
    const tokens = text.split('/');
    const values = new Map<string, string[]>();
    let code: string | null = null;
    for (const token of tokens.slice(1)) {
      if (SLASH_CODES.has(token) && code !== 'REMI' && code !== 'USTD') {
        code = token;
        values.set(code, []);
      } else if (code) values.get(code)!.push(token);
    }
    const get = (c: string) => values.get(c)?.join('/').trim() || null;
    line.end_to_end_id = get('EREF') ?? line.end_to_end_id;
    const cntp = values.get('CNTP') ?? values.get('ORDP') ?? values.get('BENM');
    line.counterparty_iban = normalizeIban(get('IBAN') ?? cntp?.[0]) ?? line.counterparty_iban;
    line.counterparty_name = get('NAME') ?? (cntp?.[2] || null) ?? line.counterparty_name;
    const remi = get('REMI') ?? get('USTD');
    const strd = /^\/?STRD\/[^/]*\/[^/]*\/(\S+)/.exec(remi ?? '');
    if (strd) line.structured_reference = strd[1]!;
    else
      line.remittance_text =
        remi
          ?.replace(/^\/?USTD\//, '')
          .replace(/^\//, '')
          .trim() || line.remittance_text;
    return;
  }
  line.remittance_text = text.trim() || line.remittance_text;
}
