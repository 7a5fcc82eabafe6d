import { catalog } from '@bo/contracts';
import { duplicate, handler, isUniqueViolation } from '@bo/runtime';
import { ensureDefaultLocation, findWarehouse, toLocationRow, type LocationRecordRow } from './location.repository';

export const createLocationHandler = handler(catalog.createLocation, async (req, ctx) => {
  await ensureDefaultLocation(ctx.db, ctx.orgId);
  const warehouse = await findWarehouse(ctx.db, ctx.orgId, req.warehouse_id);
  try {
    const [inserted] = (await ctx
      .db('locations')
      .insert({ org_id: ctx.orgId, warehouse_id: warehouse.id, name: req.name, created_by: ctx.userId ?? null })
      .returning('*')) as LocationRecordRow[];
    const location = inserted as LocationRecordRow;
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
    if (isUniqueViolation(err, 'locations_warehouse_name'))
      throw duplicate(`Location ${req.name} already exists in warehouse ${warehouse.name}`, 'name');
    throw err;
  }
});
