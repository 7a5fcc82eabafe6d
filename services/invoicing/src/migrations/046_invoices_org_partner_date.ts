import { withLockTimeout, type Migration } from '@bo/runtime';

export const migration: Migration = {
  // A statement reads one partner's history (ledger/history.ts partnerCandidates): its documents
  // found by (org, partner) in date order, as its payments already are (payments_org_partner), so
  // a partner's year does not start from everything the organization did in it.
  name: '046_invoices_org_partner_date',
  async up(trx, schema) {
    await withLockTimeout(trx, () =>
      trx.raw('create index invoices_org_partner_date on ??.invoices (org_id, partner_id, invoicedatetime)', [schema]),
    );
  },
};
