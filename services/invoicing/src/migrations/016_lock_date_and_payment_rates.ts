import type { Migration } from '@bo/runtime';
import { addOrganizationLockDate } from '@bo/billing';

export const migration: Migration = {
  // The lock date and realized exchange differences (docs/invoicing.md "Lock date", "Payments in
  // another currency"). organization_settings keeps the profile's lock_date. A payment keeps the
  // rate it was posted at (null: posted as it is, in the accounting currency or with none on
  // record) and what its amount was worth in the accounting currency, which its credit is used up
  // in proportion to; every payment before was posted as it is, so its amount.
  name: '016_lock_date_and_payment_rates',
  async up(trx, schema) {
    await addOrganizationLockDate(trx, schema);
    await trx.raw('alter table ??.payments add column exchange_rate numeric(18, 10), add column accounting_amount numeric', [schema]);
    await trx.raw('update ??.payments set accounting_amount = amount', [schema]);
    await trx.raw('alter table ??.payments alter column accounting_amount set not null', [schema]);
  },
};
