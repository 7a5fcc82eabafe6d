/**
 * Categories, warehouses, locations and stock moves have string ids (docs/design.md section 4) backed by
 * bigint keys. Anything that cannot be such a key names no record, so callers answer not_found
 * instead of letting Postgres fail on the cast.
 */
export function parseStringId(value: string): number | null {
  if (!/^[1-9]\d{0,14}$/.test(value)) return null;
  return Number(value);
}
