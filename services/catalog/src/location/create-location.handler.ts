import { catalog } from '@bo/contracts';
import { handler, isUniqueViolation } from '@bo/runtime';
import { ensureDefaultLocation, findWarehouse, insertLocation, toLocationRow } from './location.repository';
import { locationRefusals } from './location-refusals';

export const createLocationHandler = handler(catalog.createLocation, async (req, ctx) => {
  await ensureDefaultLocation(ctx.db, ctx.orgId);
  const warehouse = await findWarehouse(ctx.db, ctx.orgId, req.warehouse_id);
  try {
    const location = await insertLocation(ctx.db, ctx.orgId, warehouse.id, req.name, ctx.userId ?? null);
    return {
      message: 'Location created successfully',
      location: toLocationRow({
        location_id: location.id,
        location_name: location.name,
        is_default: location.is_default,
        warehouse_id: warehouse.id,
        warehouse_name: warehouse.name,
      }),
    };
  } catch (err) {
    if (isUniqueViolation(err, 'locations_warehouse_name')) throw locationRefusals.locationNameTaken(req.name, warehouse.name);
    throw err;
  }
});
