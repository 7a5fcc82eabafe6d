import { notFound, type Knex } from '@bo/runtime';
import type { PartnerRow } from './partner.record';

/** A live partner of the organization, optionally locked for update; another org's partner is not found. */
export async function findLivePartner(db: Knex, orgId: number, partnerId: number, opts: { lock?: boolean } = {}): Promise<PartnerRow> {
  const query = db<PartnerRow>('partners').where({ org_id: orgId, id: partnerId }).whereNull('deleted_at').first();
  const row = await (opts.lock ? query.forUpdate() : query);
  if (!row) throw notFound('Partner', partnerId);
  return row;
}
