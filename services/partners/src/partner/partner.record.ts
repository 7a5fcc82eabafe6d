import type { partners } from '@bo/contracts';
import { dec, formatDateTime, toNumber } from '@bo/runtime';

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
  committed: string;
  currency: string | null;
  payment_terms: string | null;
  contact_person: string | null;
  notes: string | null;
  version: number;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

export function toPartnerRecord(row: PartnerRow): partners.PartnerRecord {
  return {
    id: row.id,
    orgid: row.org_id,
    partnername: row.partnername,
    display_name: row.display_name,
    partner_type: row.partner_type,
    email: row.email,
    phone: row.phone,
    address: row.address,
    address_line1: row.address_line1,
    address_line2: row.address_line2,
    city: row.city,
    postal_code: row.postal_code,
    region: row.region,
    country: row.country,
    tax_number: row.tax_number,
    credit_limit: toNumber(row.credit_limit),
    balance: toNumber(row.balance),
    committed: toNumber(row.committed),
    currency: row.currency,
    payment_terms: row.payment_terms,
    contact_person: row.contact_person,
    notes: row.notes,
    version: row.version,
    created_at: formatDateTime(row.created_at) as string,
    updated_at: formatDateTime(row.updated_at) as string,
  };
}

/** What the partner may still buy on credit: credit limit minus what it owes. */
export function availableCredit(row: Pick<PartnerRow, 'credit_limit' | 'balance'>): number {
  return toNumber(dec(row.credit_limit).minus(dec(row.balance)));
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
