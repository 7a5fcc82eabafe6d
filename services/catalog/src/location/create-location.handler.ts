import { catalog } from '@bo/contracts';
import { filledIn, handler, isUniqueViolation, unlessRefused } from '@bo/runtime';
import { decideNewLocation, newLocationRow } from './decide-location';
import { ensureDefaultLocation, findWarehouse, insertLocation, locationInsertAlone } from './location.repository';
import { locationRefusals } from './location-refusals';

const MESSAGE = 'Location created successfully';

/**
 * Decide → store. A new location decides on nothing stored: as a rule its insert and the recorded
 * reply are one statement with no transaction (`alone`), which writes only in a warehouse of the
 * organization, once the organization has its default location, and under a name the warehouse has
 * no location of; its id and its warehouse's name are filled in from it. Otherwise the usual way
 * (`apply`) makes the organization's defaults first, then answers the warehouse not found or the
 * name taken, or stores the location.
 */
export const createLocationHandler = handler(catalog.createLocation, {
  alone: (req, ctx) => {
    const location = unlessRefused(() => decideNewLocation(req));
    if (!location) return undefined;
    return {
      ...locationInsertAlone(ctx.orgId, location, ctx.userId ?? null),
      events: [],
      reply: { message: MESSAGE, location: newLocationRow(location, { warehouseName: filledIn(), locationId: filledIn() }) },
    };
  },
  apply: async (req, ctx) => {
    await ensureDefaultLocation(ctx.db, ctx.orgId);
    const warehouse = await findWarehouse(ctx.db, ctx.orgId, req.warehouse_id);
    const location = decideNewLocation(req);
    try {
      const stored = await insertLocation(ctx.db, ctx.orgId, warehouse.id, location.name, ctx.userId ?? null);
      return { message: MESSAGE, location: newLocationRow(location, { warehouseName: warehouse.name, locationId: String(stored.id) }) };
    } catch (err) {
      if (isUniqueViolation(err, 'locations_warehouse_name')) throw locationRefusals.locationNameTaken(req.name, warehouse.name);
      throw err;
    }
  },
});
