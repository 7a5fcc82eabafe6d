import type { Knex } from '@bo/runtime';
import { productRefusals } from './product-refusals';
import { ensureDefaultLocation, findLocation, findWarehouse, mainLocationOf, type LocationJoinRow } from '../location/location.repository';

/**
 * Where a new product's initial stock goes: the location named, else the main location of the
 * warehouse named, else the organization's default location. Names are checked even when there is
 * no stock to place, so a typo is a 400 rather than silently ignored.
 */
export async function resolvePlacement(
  db: Knex,
  orgId: number,
  req: { warehouse_id?: string; location_id?: string },
  needed: boolean,
): Promise<LocationJoinRow | null> {
  if (req.location_id !== undefined) {
    const location = await findLocation(db, orgId, req.location_id);
    if (req.warehouse_id !== undefined) {
      const warehouse = await findWarehouse(db, orgId, req.warehouse_id);
      if (warehouse.id !== location.warehouse_id) throw productRefusals.locationOutsideWarehouse(req.location_id, req.warehouse_id);
    }
    return location;
  }
  if (req.warehouse_id !== undefined) {
    const warehouse = await findWarehouse(db, orgId, req.warehouse_id);
    return mainLocationOf(db, orgId, warehouse.id);
  }
  return needed ? ensureDefaultLocation(db, orgId) : null;
}
