import * as testing from '@bo/testkit';

/** The organization's profile as partners publishes it, with the accounting currency under test. */
export const organizationProfile = (org_id: number, default_currency: string | null, version: number) => ({
  org_id,
  version,
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
  default_currency,
  time_zone: null,
  rounding: 'line',
  cash_rounding: null,
  logo_sha256: null,
  logo_bytes: null,
  updated_at: '2026-03-01T00:00:00',
});

/** Publishes the organization's profile and waits until invoicing's read model has it. */
export async function setAccountingCurrency(svc: testing.TestService, org: number, currency: string | null, version: number) {
  const event = await svc.publish('partners.organization.updated', org, organizationProfile(org, currency, version));
  await testing.waitUntil(
    async () => (await svc.db('inbox').where({ consumer: 'invoicing.organization', event_id: event.id })).length === 1,
  );
}
