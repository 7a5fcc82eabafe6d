import type { Migration } from '@bo/runtime';

export const migration: Migration = {
  // Aged balances read only the items that can be open on their day (ledger/history.ts `openOn`):
  // the payments with credit left, by their running balance, what an allocation or refund dated
  // after the day touched, by date, and the voided payments (few). (Open documents have
  // invoices_partner_open.)
  name: '029_ledger_open_items',
  async up(trx, schema) {
    await trx.raw(
      `create index payments_org_credit_left on ??.payments (org_id) where status = 'posted' and amount > allocated + refunded`,
      [schema],
    );
    await trx.raw('create index payment_allocations_org_date on ??.payment_allocations (org_id, allocation_date)', [schema]);
    await trx.raw('create index payment_refunds_org_date on ??.payment_refunds (org_id, refund_date)', [schema]);
    await trx.raw(`create index payments_org_voided on ??.payments (org_id) where status = 'voided'`, [schema]);
  },
};
