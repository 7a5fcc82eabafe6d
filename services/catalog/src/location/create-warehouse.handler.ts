import { catalog } from '@bo/contracts';
import { formatDateTime } from '@bo/kernel';
import { handler, isUniqueViolation } from '@bo/runtime';
import { ensureDefaultLocation, insertLocation, insertWarehouse, MAIN_LOCATION_NAME, toLocationRow } from './location.repository';
import { locationRefusals } from './location-refusals';

export const createWarehouseHandler = handler(catalog.createWarehouse, async (req, ctx) => {
  // The default comes first, so a first call still leaves the organization with its default.
  await ensureDefaultLocation(ctx.db, ctx.orgId);
  try {
    return await ctx.db.transaction(async (trx) => {
      const w = await insertWarehouse(trx, ctx.orgId, req.name, req.address || null, ctx.userId ?? null);
      const location = await insertLocation(trx, ctx.orgId, w.id, MAIN_LOCATION_NAME, ctx.userId ?? null);
      return {
        message: 'Warehouse created successfully',
        warehouse: {
          id: String(w.id),
          name: w.name,
          address: w.address,
          is_default: w.is_default,
          created_at: formatDateTime(w.created_at) as string,
        },
        location: toLocationRow({
          location_id: location.id,
          location_name: location.name,
          is_default: location.is_default,
          warehouse_id: w.id,
          warehouse_name: w.name,
        }),
      };
    });
  } catch (err) {
    if (isUniqueViolation(err, 'warehouses_org_name')) throw locationRefusals.warehouseNameTaken(req.name);
    throw err;
  }
});
