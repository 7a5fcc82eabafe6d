import * as testing from '@bo/testkit';

/** Publishes the organization's profile (without the logo's bytes, as partners announces it) and waits until invoicing's read model has it. */
export async function setAccountingCurrency(svc: testing.TestService, org: number, currency: string | null, version: number) {
  const { logo_png: _bytes, ...summary } = testing.profileRecord(org, {
    default_currency: currency,
    version,
    updated_at: '2026-03-01T00:00:00',
  });
  const event = await svc.publish('partners.organization.updated', org, summary);
  await testing.waitUntil(
    async () => (await svc.db('inbox').where({ consumer: 'invoicing.organization', event_id: event.id })).length === 1,
  );
}
