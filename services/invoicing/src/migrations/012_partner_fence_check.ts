import type { Migration } from '@bo/runtime';
import { createPartnerFenceCheck } from '@bo/billing';

export const migration: Migration = {
  // The fence check a create makes in one round trip rather than two (runtime read-models/partner-delete-fence.ts).
  name: '012_partner_fence_check',
  async up(trx, schema) {
    await createPartnerFenceCheck(trx, schema);
  },
};
