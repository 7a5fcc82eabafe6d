import type { organization, partners } from '@bo/contracts';

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
    peppol_id: null,
    bank_accounts: [],
    dunning_blocked: false,
    version: 1,
    created_at: '2026-01-01T00:00:00',
    updated_at: '2026-01-01T00:00:00',
    ...over,
  };
}

/** A whole organization profile as partners answers it (empty unless `over` sets fields), for stand-ins of the partners service. */
export function profileRecord(org_id: number, over: Partial<organization.ProfileRecord> = {}): organization.ProfileRecord {
  return {
    org_id,
    version: 0,
    legal_name: null,
    trading_name: null,
    address_line1: null,
    address_line2: null,
    city: null,
    postal_code: null,
    country: null,
    vat_id: null,
    company_id: null,
    email: null,
    phone: null,
    iban: null,
    bic: null,
    default_currency: null,
    time_zone: null,
    rounding: 'line',
    cash_rounding: null,
    lock_date: null,
    peppol_id: null,
    logo_sha256: null,
    logo_bytes: null,
    updated_at: null,
    logo_png: null,
    ...over,
  };
}
