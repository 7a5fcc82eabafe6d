import type { partners } from '@bo/contracts';
import { dec, toNumber } from '@bo/kernel';
import { recordMapper, type RecordFields } from '@bo/runtime';
import type { WeighedBalance } from '../ledger/currency-balances';

export interface PartnerRow {
  id: number;
  org_id: number;
  partnername: string;
  display_name: string;
  partner_type: 'customer' | 'vendor' | 'both';
  email: string | null;
  phone: string | null;
  address: string | null;
  address_line1: string | null;
  address_line2: string | null;
  city: string | null;
  postal_code: string | null;
  region: string | null;
  country: string | null;
  tax_number: string | null;
  credit_limit: string;
  balance: string;
  /** What the partner owes as a customer (ledger-maintained, like balance; not part of the record). */
  receivable: string;
  committed: string;
  currency: string | null;
  payment_terms: string | null;
  contact_person: string | null;
  notes: string | null;
  peppol_id: string | null;
  /** The partner's own accounts (migration 011), as partners.BankAccountRecord. */
  bank_accounts: partners.BankAccountRecord[];
  dunning_blocked: boolean;
  version: number;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

/**
 * The partner record the API answers, from the partners table: the one definition both the mapper
 * of a row read (toPartnerRecord) and the list's SQL, where PostgreSQL writes the records' JSON
 * (list-partners.handler.ts), are made from.
 */
export const partnerRecordFields: RecordFields<partners.PartnerRecord> = {
  id: ['id', 'value'],
  orgid: ['org_id', 'value'],
  partnername: ['partnername', 'value'],
  display_name: ['display_name', 'value'],
  partner_type: ['partner_type', 'value'],
  email: ['email', 'value'],
  phone: ['phone', 'value'],
  address: ['address', 'value'],
  address_line1: ['address_line1', 'value'],
  address_line2: ['address_line2', 'value'],
  city: ['city', 'value'],
  postal_code: ['postal_code', 'value'],
  region: ['region', 'value'],
  country: ['country', 'value'],
  tax_number: ['tax_number', 'value'],
  credit_limit: ['credit_limit', 'number'],
  balance: ['balance', 'number'],
  committed: ['committed', 'number'],
  currency: ['currency', 'value'],
  payment_terms: ['payment_terms', 'value'],
  contact_person: ['contact_person', 'value'],
  notes: ['notes', 'value'],
  peppol_id: ['peppol_id', 'value'],
  bank_accounts: ['bank_accounts', 'value'],
  dunning_blocked: ['dunning_blocked', 'value'],
  version: ['version', 'value'],
  created_at: ['created_at', 'datetime'],
  updated_at: ['updated_at', 'datetime'],
};

export const toPartnerRecord: (row: PartnerRow) => partners.PartnerRecord = recordMapper(partnerRecordFields);

/**
 * The bank accounts as stored: IBAN and BIC as the request's schema normalized them, absent parts
 * null, keys in the record's order. The column is `json` (not jsonb), so PostgreSQL writes this text
 * into the listed record as it is, byte for byte what the mapper answers.
 */
export function storedBankAccounts(accounts: ReadonlyArray<{ iban: string; bic?: string | null; name?: string | null }>): string {
  return JSON.stringify(accounts.map((a) => ({ iban: a.iban, bic: a.bic || null, name: a.name?.trim() || null })));
}

/** What the credit check weighs: the partner's ledger figures, weighed and per currency, and its limit. */
export function creditOf(row: PartnerRow, weighed: WeighedBalance): partners.PartnerCredit {
  return {
    balance: toNumber(weighed.balance),
    receivable: toNumber(weighed.receivable),
    credit_limit: toNumber(row.credit_limit),
    // What the partner may still buy on credit: credit limit minus what it owes.
    available_credit: toNumber(dec(row.credit_limit).minus(weighed.balance)),
    currency: weighed.currency,
    balances: weighed.balances,
  };
}

/** Types a list filter matches: a `both` partner is a customer and a vendor. */
export function typesMatching(filter: 'customer' | 'vendor' | 'both'): string[] {
  return filter === 'both' ? ['both'] : [filter, 'both'];
}

/** The structured address fields, written as given; an empty string clears one. */
export const STRUCTURED_ADDRESS = ['address_line1', 'address_line2', 'city', 'postal_code', 'region', 'country'] as const;

export function structuredAddress(
  req: Partial<Record<(typeof STRUCTURED_ADDRESS)[number], string | null | undefined>>,
): Partial<Record<(typeof STRUCTURED_ADDRESS)[number], string | null>> {
  const out: Partial<Record<(typeof STRUCTURED_ADDRESS)[number], string | null>> = {};
  for (const field of STRUCTURED_ADDRESS) {
    const value = req[field];
    if (value !== undefined) out[field] = value === null ? null : value.trim() || null;
  }
  return out;
}
