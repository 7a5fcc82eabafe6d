import type { Migration } from '@bo/runtime';
import { createPartnerDeleteFences } from '@bo/billing';

export const migration: Migration = {
  // A partner being deleted gets no new quotation (runtime read-models/partner-delete-fence.ts).
  name: '007_exposure_by_receivable',
  async up(trx, schema) {
    await createPartnerDeleteFences(trx, schema);
  },
};
