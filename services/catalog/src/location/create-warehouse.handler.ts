import { catalog } from '@bo/contracts';
import { formatDateTime } from '@bo/kernel';
import { filledIn, handler, isUniqueViolation } from '@bo/runtime';
import { decideNewWarehouse, MAIN_LOCATION_NAME, warehouseCreatedReply } from './decide-location';
import { ensureDefaultLocation, insertLocation, insertWarehouse, warehouseInsertAlone } from './location.repository';
import { locationRefusals } from './location-refusals';

/**
 * Decide → store. A new warehouse decides on nothing stored: as a rule it and its main location are
 * one statement with the recorded reply, with no transaction (`alone`), which writes only once the
 * organization has its default location and under a name no warehouse of it has; their ids and time
 * are filled in from it. Otherwise the usual way (`apply`) makes the organization's defaults first,
 * so a first call still leaves it with its default, then answers the name taken or stores both.
 */
export const createWarehouseHandler = handler(catalog.createWarehouse, {
  alone: (req, ctx) => {
    const warehouse = decideNewWarehouse(req);
    return {
      ...warehouseInsertAlone(ctx.orgId, warehouse, ctx.userId ?? null),
      events: [],
      reply: warehouseCreatedReply(warehouse, { warehouseId: filledIn(), locationId: filledIn(), createdAt: filledIn() }),
    };
  },
  apply: async (req, ctx) => {
    await ensureDefaultLocation(ctx.db, ctx.orgId);
    const warehouse = decideNewWarehouse(req);
    try {
      return await ctx.db.transaction(async (trx) => {
        const w = await insertWarehouse(trx, ctx.orgId, warehouse.name, warehouse.address, ctx.userId ?? null);
        const location = await insertLocation(trx, ctx.orgId, w.id, MAIN_LOCATION_NAME, ctx.userId ?? null);
        return warehouseCreatedReply(warehouse, {
          warehouseId: String(w.id),
          locationId: String(location.id),
          createdAt: formatDateTime(w.created_at) as string,
        });
      });
    } catch (err) {
      if (isUniqueViolation(err, 'warehouses_org_name')) throw locationRefusals.warehouseNameTaken(req.name);
      throw err;
    }
  },
});
