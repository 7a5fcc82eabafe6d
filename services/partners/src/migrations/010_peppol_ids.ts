import { withLockTimeout, type Migration } from '@bo/runtime';

export const migration: Migration = {
  // The Peppol participant ids (`<EAS scheme>:<identifier>`, docs/documents.md "Peppol") of the
  // organization and of each partner: their electronic addresses on Peppol documents. Checked by
  // the contracts; null while none is set.
  name: '010_peppol_ids',
  async up(trx, schema) {
    await withLockTimeout(trx, async () => {
      await trx.raw('alter table ??.organization_profiles add column peppol_id varchar(64)', [schema]);
      await trx.raw('alter table ??.partners add column peppol_id varchar(64)', [schema]);
    });
  },
};
