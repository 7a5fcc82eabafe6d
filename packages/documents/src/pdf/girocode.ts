import { type Dec } from '@bo/kernel';
import QRCode from 'qrcode';

/** The most an EPC069-12 payload may hold, in bytes (UTF-8). */
export const GIROCODE_MAX_BYTES = 331;

export interface GirocodeTransfer {
  /** The beneficiary's BIC; optional in version 002 within the EEA. */
  bic?: string | null;
  /** The beneficiary's name, cut to 70 characters. */
  name: string;
  iban: string;
  /** EUR, 0.01 to 999,999,999.99. */
  amount: Dec;
  /** A four-letter ISO 20022 purpose code (`GDSV`: purchase of goods and services). */
  purpose?: string | null;
  /** An ISO 11649 creditor reference (`RF…`), sent as structured remittance ... */
  reference?: string | null;
  /** ... or, without one, unstructured remittance text, cut to 140 characters. */
  text?: string | null;
}

const cut = (value: string, max: number) => [...value.replace(/[\r\n]+/g, ' ').trim()].slice(0, max).join('');

/**
 * The payload of an EPC069-12 ("GiroCode", SEPA credit transfer) QR code, version 002, UTF-8:
 * BCD, 002, 1, SCT, BIC, name, IBAN, EUR amount, purpose, structured reference or text; lines
 * separated by LF, trailing empty ones left out. Null when no transfer can be stated (an amount
 * outside what the standard allows, no IBAN or name, or more than 331 bytes).
 */
export function girocodePayload(t: GirocodeTransfer): string | null {
  const iban = t.iban.replace(/\s+/g, '').toUpperCase();
  const name = cut(t.name, 70);
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{1,30}$/.test(iban) || !name) return null;
  if (t.amount.lt('0.01') || t.amount.gt('999999999.99') || t.amount.decimalPlaces() > 2) return null;
  const reference = t.reference ? t.reference.replace(/\s+/g, '').toUpperCase() : '';
  const lines = [
    'BCD',
    '002',
    '1',
    'SCT',
    (t.bic ?? '').replace(/\s+/g, '').toUpperCase(),
    name,
    iban,
    `EUR${t.amount.toFixed(2)}`,
    (t.purpose ?? '').toUpperCase(),
    cut(reference, 35),
    reference ? '' : cut(t.text ?? '', 140),
  ];
  while (lines[lines.length - 1] === '') lines.pop();
  const payload = lines.join('\n');
  return Buffer.byteLength(payload, 'utf8') <= GIROCODE_MAX_BYTES ? payload : null;
}

/** The QR symbol of a payload at the error correction EPC069-12 requires (M): its modules, row by row. */
export function girocodeModules(payload: string): { size: number; dark: (row: number, col: number) => boolean } {
  const { modules } = QRCode.create(payload, { errorCorrectionLevel: 'M' });
  return { size: modules.size, dark: (row, col) => Boolean(modules.get(row, col)) };
}
