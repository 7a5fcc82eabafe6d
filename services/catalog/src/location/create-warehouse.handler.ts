import { catalog } from '@bo/contracts';
import { formatDateTime } from '@bo/kernel';
import { duplicate, handler, isUniqueViolation } from '@bo/runtime';
import { ensureDefaultLocation, MAIN_LOCATION_NAME, toLocationRow, type LocationRecordRow, type WarehouseRow } from './location.repository';

export const createWarehouseHandler = handler(catalog.createWarehouse, async (req, ctx) => {
  // The default comes first, so a first call still leaves the organization with its default.
  await ensureDefaultLocation(ctx.db, ctx.orgId);
  try {
    return await ctx.db.transaction(async (trx) => {
      const [warehouse] = (await trx('warehouses')
        .insert({ org_id: ctx.orgId, name: req.name, address: req.address || null, created_by: ctx.userId ?? null })
        .returning('*')) as WarehouseRow[];
      const w = warehouse as WarehouseRow;
      const [inserted] = (await trx('locations')
        .insert({ org_id: ctx.orgId, warehouse_id: w.id, name: MAIN_LOCATION_NAME, created_by: ctx.userId ?? null })
        .returning('*')) as LocationRecordRow[];
      const location = inserted as LocationRecordRow;
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
    if (isUniqueViolation(err, 'warehouses_org_name')) throw duplicate(`Warehouse ${req.name} already exists`, 'name');
    throw err;
  }
});
