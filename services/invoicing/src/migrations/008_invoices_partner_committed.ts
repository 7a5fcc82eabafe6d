import type { Migration } from '@bo/runtime';

export const migration: Migration = {
  // The credit check sums a partner's committed drafts (made from converted quotations) under the
  // partner's credit lock, and no index had the partner for them: each validation read every
  // invoice of the table (a parallel sequential scan, 22 ms at 200,000 invoices, with the lock held).
  // Partial, so it holds only the drafts waiting for validation. A plain (not concurrent) build:
  // migrations run in one transaction at start-up, and it blocks writes to invoices while it runs.
  name: '008_invoices_partner_committed',
  async up(trx, schema) {
    await trx.raw(
      `create index invoices_partner_committed on ??.invoices (org_id, partner_id)
           where sourcetype = 'quotation' and invoicestatus in ('draft', 'proforma')`,
      [schema],
    );
  },
};
