import * as testing from '@bo/testkit';

/** Sets the organization's accounting currency as partners' profile does: through invoicing's own books operation. */
export async function setAccountingCurrency(svc: testing.TestService, org: number, currency: string | null) {
  const reply = await svc.call('invoicing.books.configure', { default_currency: currency }, org);
  if (!reply.ok) throw new Error(`the books refused ${currency}: ${reply.status} ${reply.message}`);
}
