import { dec } from '@bo/kernel';
import {
  checkAmount,
  checkDate,
  checkLineCount,
  MAX_STATEMENT_BYTES,
  normalizeIban,
  StatementError,
  type ParsedStatementLine,
} from './statement';

/**
 * Which column holds what, by the header's name (or by 1-based position when the file has no
 * header): `date` and either `amount` (signed) or `debit` and `credit` (each positive) are
 * required. Numbers use `decimal_separator` ("." or ","; thousands separators of the other kind,
 * spaces and apostrophes are dropped); dates `date_format`, built of YYYY, MM, DD and one separator.
 */
export interface CsvMapping {
  date: string;
  amount?: string;
  debit?: string;
  credit?: string;
  text?: string;
  reference?: string;
  counterparty_name?: string;
  counterparty_iban?: string;
  bank_reference?: string;
  value_date?: string;
  delimiter?: string;
  decimal_separator?: '.' | ',';
  date_format?: string;
  header?: boolean;
}

/** RFC 4180 records: quoted fields may hold the delimiter, newlines and doubled quotes. */
export function csvRecords(content: string, delimiter: string): string[][] {
  const records: string[][] = [];
  let field = '';
  let record: string[] = [];
  let quoted = false;
  const text = content.charCodeAt(0) === 0xfeff ? content.slice(1) : content;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === delimiter) {
      record.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      record.push(field);
      if (record.some((f) => f.trim() !== '')) records.push(record);
      checkLineCount(records.length - 1);
      record = [];
      field = '';
    } else field += c;
  }
  if (quoted) throw new StatementError('an unclosed quoted field');
  record.push(field);
  if (record.some((f) => f.trim() !== '')) records.push(record);
  return records;
}

export function parseDateAs(raw: string, format: string, where: string): string {
  const value = raw.trim();
  const tokens = format.match(/YYYY|MM|DD|[^YMD]/g) ?? [];
  let pos = 0;
  const parts: Record<string, string> = {};
  for (const token of tokens) {
    const size = token.length;
    const piece = value.slice(pos, pos + size);
    if (token === 'YYYY' || token === 'MM' || token === 'DD') {
      if (!/^\d+$/.test(piece)) throw new StatementError(`${where}: "${raw}" is not a date as ${format}`);
      parts[token] = piece;
    } else if (piece !== token) throw new StatementError(`${where}: "${raw}" is not a date as ${format}`);
    pos += size;
  }
  if (pos !== value.length || !parts['YYYY'] || !parts['MM'] || !parts['DD'])
    throw new StatementError(`${where}: "${raw}" is not a date as ${format}`);
  return checkDate(`${parts['YYYY']}-${parts['MM']}-${parts['DD']}`, where);
}

function number(raw: string, separator: '.' | ',', where: string): string {
  let value = raw.trim().replace(/[\s'\u00a0]/g, '');
  if (separator === ',') value = value.replace(/\./g, '').replace(',', '.');
  else value = value.replace(/,/g, '');
  // A trailing minus or parentheses mark a negative amount in some exports.
  if (/^\(.*\)$/.test(value)) value = `-${value.slice(1, -1)}`;
  if (/^[\d.]+-$/.test(value)) value = `-${value.slice(0, -1)}`;
  if (value.startsWith('+')) value = value.slice(1);
  return checkAmount(value, where);
}

/** The lines of a CSV statement; a CSV carries no balances and no statement id (the import takes them from elsewhere). */
export function parseCsv(content: string, mapping: CsvMapping, currency: string): ParsedStatementLine[] {
  if (Buffer.byteLength(content, 'utf8') > MAX_STATEMENT_BYTES) throw new StatementError(`larger than ${MAX_STATEMENT_BYTES} bytes`);
  if (!mapping.amount && !(mapping.debit && mapping.credit)) throw new StatementError('mapping: needs amount, or debit and credit');
  const delimiter = mapping.delimiter ?? ',';
  if (delimiter.length !== 1 || delimiter === '"') throw new StatementError('mapping.delimiter: one character, not a quote');
  const separator = mapping.decimal_separator ?? '.';
  const format = mapping.date_format ?? 'YYYY-MM-DD';
  const records = csvRecords(content, delimiter);
  const hasHeader = mapping.header ?? true;
  const header = hasHeader ? (records[0] ?? []).map((h) => h.trim()) : [];
  const rows = hasHeader ? records.slice(1) : records;
  const column = (name: string | undefined, key: string): number | null => {
    if (!name) return null;
    const index = hasHeader ? header.indexOf(name) : Number(name) - 1;
    if (index < 0 || !Number.isInteger(index)) throw new StatementError(`mapping.${key}: no column "${name}"`);
    return index;
  };
  const cols = {
    date: column(mapping.date, 'date')!,
    amount: column(mapping.amount, 'amount'),
    debit: column(mapping.debit, 'debit'),
    credit: column(mapping.credit, 'credit'),
    text: column(mapping.text, 'text'),
    reference: column(mapping.reference, 'reference'),
    name: column(mapping.counterparty_name, 'counterparty_name'),
    iban: column(mapping.counterparty_iban, 'counterparty_iban'),
    bankRef: column(mapping.bank_reference, 'bank_reference'),
    valueDate: column(mapping.value_date, 'value_date'),
  };
  return rows.map((row, i) => {
    const where = `row ${i + 1 + (hasHeader ? 1 : 0)}`;
    const cell = (index: number | null) => (index === null ? null : row[index]?.trim() || null);
    let amount: string;
    if (cols.amount !== null) amount = number(cell(cols.amount) ?? '', separator, `${where} amount`);
    else {
      const credit = cell(cols.credit);
      const debit = cell(cols.debit);
      const value = dec(credit ? number(credit, separator, `${where} credit`) : 0).minus(
        dec(debit ? number(debit, separator, `${where} debit`) : 0).abs(),
      );
      amount = value.toFixed();
    }
    const valueDate = cell(cols.valueDate);
    return {
      amount,
      currency,
      booking_date: parseDateAs(cell(cols.date) ?? '', format, `${where} date`),
      value_date: valueDate ? parseDateAs(valueDate, format, `${where} value date`) : null,
      bank_reference: cell(cols.bankRef),
      end_to_end_id: null,
      structured_reference: cell(cols.reference),
      remittance_text: cell(cols.text),
      counterparty_name: cell(cols.name),
      counterparty_iban: normalizeIban(cell(cols.iban)),
    };
  });
}
