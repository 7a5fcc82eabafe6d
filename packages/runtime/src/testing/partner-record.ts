import type { partners } from '@bo/contracts';

/** A whole partner record as partners publishes it, for tests that feed the partner read models; `over` sets what the test is about. */
export function partnerRecord(orgid: number, id: number, over: Partial<partners.PartnerRecord> = {}): partners.PartnerRecord {
  return {
    id,
    orgid,
    partnername: `Partner ${id}`,
    display_name: `Partner ${id}`,
    partner_type: 'customer',
    email: null,
    phone: null,
    address: null,
    address_line1: null,
    address_line2: null,
    city: null,
    postal_code: null,
    region: null,
    country: null,
    tax_number: null,
    credit_limit: 0,
    balance: 0,
    committed: 0,
    currency: 'EUR',
    payment_terms: null,
    contact_person: null,
    notes: null,
    version: 1,
    created_at: '2026-01-01T00:00:00',
    updated_at: '2026-01-01T00:00:00',
    ...over,
  };
}
