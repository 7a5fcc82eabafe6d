import { catalog } from '@bo/contracts';
import { handler } from '@bo/runtime';
import { ensureDefaultLocation, locationsQuery, toLocationRow, type LocationJoinRow } from './location.repository';

export const listLocationsHandler = handler(catalog.listLocations, async (_req, ctx) => {
  await ensureDefaultLocation(ctx.db, ctx.orgId);
  const rows = (await locationsQuery(ctx.db, ctx.orgId).orderBy([
    { column: 'w.is_default', order: 'desc' },
    { column: 'w.id' },
    { column: 'l.is_default', order: 'desc' },
    { column: 'l.id' },
  ])) as LocationJoinRow[];
  return { message: 'Locations retrieved successfully', locations: rows.map(toLocationRow) };
});
