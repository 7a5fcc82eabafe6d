import { withLockTimeout, type Migration } from '@bo/runtime';

export const migration: Migration = {
  // A statement reads its partner's payments dated from the day before its period on by a range of
  // this index (ledger/history.ts partnerRows), as it reads the documents by invoices_org_partner_date,
  // instead of probing each payment a posting after that day names by its id.
  name: '061_payments_org_partner_date',
  async up(trx, schema) {
    const q = `"${schema.replace(/"/g, '""')}"`;
    await withLockTimeout(trx, () => trx.raw(`create index payments_org_partner_date on ${q}.payments (org_id, partner_id, payment_date)`));
  },
};
