import { dec } from '@bo/kernel';
import { normalizeIban as normalizeStoredIban } from '@bo/contracts';

/**
 * A bank statement as the parsers read it, whatever the format: amounts are exact decimal strings,
 * a line's `amount` signed from the account holder's side (positive: money in, a credit; negative:
 * money out, a debit), dates `YYYY-MM-DD`.
 */
export interface ParsedStatementLine {
  amount: string;
  currency: string;
  booking_date: string;
  value_date: string | null;
  /** The bank's own reference of the entry (camt AcctSvcrRef, MT940 :61: bank reference). */
  bank_reference: string | null;
  end_to_end_id: string | null;
  /** A structured creditor reference (ISO 11649 `RF…` or the like), when the payer gave one. */
  structured_reference: string | null;
  /** The unstructured remittance text. */
  remittance_text: string | null;
  counterparty_name: string | null;
  counterparty_iban: string | null;
}

export interface ParsedStatement {
  statement_id: string;
  /** The electronic sequence number (camt ElctrncSeqNb, MT940 :28C:), when given. */
  sequence: string | null;
  iban: string | null;
  currency: string;
  opening_balance: string;
  opening_date: string | null;
  closing_balance: string;
  closing_date: string | null;
  lines: ParsedStatementLine[];
}

export type StatementFormat = 'camt053' | 'mt940' | 'csv';

/** A refusal of a bank file, naming where it went wrong; the handler answers it as a 400 on `content_base64`. */
export class StatementError extends Error {}

/** The most a statement file may hold: 10 MB, 20,000 lines. */
export const MAX_STATEMENT_BYTES = 10 * 1024 * 1024;
export const MAX_STATEMENT_LINES = 20_000;

export function checkAmount(raw: string, where: string): string {
  const value = raw.trim();
  if (!/^-?\d{1,15}(\.\d{1,5})?$/.test(value)) throw new StatementError(`${where}: "${raw}" is not an amount`);
  return dec(value).toFixed();
}

export function checkDate(raw: string, where: string): string {
  const value = raw.trim().slice(0, 10);
  const date = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!date) throw new StatementError(`${where}: "${raw}" is not a date`);
  const d = new Date(`${value}T00:00:00Z`);
  if (Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== value) throw new StatementError(`${where}: "${raw}" is not a date`);
  return value;
}

/** An IBAN as a statement or a request states it, in the form it is stored in (the contracts' rule); null when there is none. */
export function normalizeIban(raw: string | null | undefined): string | null {
  return raw ? normalizeStoredIban(raw) || null : null;
}

export function checkLineCount(count: number): void {
  if (count > MAX_STATEMENT_LINES) throw new StatementError(`more than ${MAX_STATEMENT_LINES} lines`);
}
