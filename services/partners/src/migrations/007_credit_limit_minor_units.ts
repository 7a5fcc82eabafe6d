import { withLockTimeout, type Migration } from '@bo/runtime';

export const migration: Migration = {
  // A credit limit is in the partner's currency to its minor unit (partner/credit-limit.ts), three
  // decimals for KWD or BHD, as the balance it is weighed against: unbounded, as 006 made the ledger.
  name: '007_credit_limit_minor_units',
  async up(trx, schema) {
    await withLockTimeout(trx, () =>
      trx.raw('alter table ??.partners alter column credit_limit type numeric, alter column credit_limit set default 0.00', [schema]),
    );
  },
};
