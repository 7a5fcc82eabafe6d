import type { catalog, ReplyOf, RequestOf } from '@bo/contracts';
import { parseStringId } from '../ids';
import { locationRefusals } from './location-refusals';

export type CreateLocationRequest = RequestOf<typeof catalog.createLocation>;
export type CreateWarehouseRequest = RequestOf<typeof catalog.createWarehouse>;

/** Every new warehouse gets a location of this name, so it can hold stock at once. */
export const MAIN_LOCATION_NAME = 'Stock';

/** A new location, as it is stored. */
export interface NewLocation {
  warehouseId: number;
  name: string;
}

/** A new warehouse, as it is stored; its main location (MAIN_LOCATION_NAME) goes with it. */
export interface NewWarehouse {
  name: string;
  address: string | null;
}

/**
 * A new location, decided from the request: a location that is not the default, of the name given,
 * in the warehouse the request names (one that is no id names none). That the warehouse is the
 * organization's, and that no location of the warehouse has the name, is checked where it is stored.
 */
export function decideNewLocation(req: Pick<CreateLocationRequest, 'warehouse_id' | 'name'>): NewLocation {
  const warehouseId = parseStringId(req.warehouse_id);
  if (warehouseId === null) throw locationRefusals.warehouseNotFound(req.warehouse_id);
  return { warehouseId, name: req.name };
}

/** The reply's row of a new location, stored under `locationId` in a warehouse of the name `warehouseName`. */
export function newLocationRow(location: NewLocation, stored: { warehouseName: string; locationId: string }): catalog.LocationRow {
  return {
    warehouse_id: String(location.warehouseId),
    warehouse_name: stored.warehouseName,
    location_id: stored.locationId,
    location_name: location.name,
    is_default: false,
  };
}

/**
 * A new warehouse, decided from the request: not the default, of the name given (no other
 * warehouse of the organization may have it: checked where it is stored), a blank address none.
 */
export function decideNewWarehouse(req: Pick<CreateWarehouseRequest, 'name' | 'address'>): NewWarehouse {
  return { name: req.name, address: req.address || null };
}

/** The reply to a new warehouse as stored (its id, its main location's, its time as formatDateTime writes it), with its main location. */
export function warehouseCreatedReply(
  warehouse: NewWarehouse,
  stored: { warehouseId: string; locationId: string; createdAt: string },
): ReplyOf<typeof catalog.createWarehouse> {
  return {
    message: 'Warehouse created successfully',
    warehouse: {
      id: stored.warehouseId,
      name: warehouse.name,
      address: warehouse.address,
      is_default: false,
      created_at: stored.createdAt,
    },
    location: {
      warehouse_id: stored.warehouseId,
      warehouse_name: warehouse.name,
      location_id: stored.locationId,
      location_name: MAIN_LOCATION_NAME,
      is_default: false,
    },
  };
}
