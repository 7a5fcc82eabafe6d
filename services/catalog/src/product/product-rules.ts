import { dec } from '@bo/kernel';

/** Minimum above maximum would make every reorder rule contradict itself. */
export function stockLevelsProblem(min: string | null | undefined, max: string | null | undefined): string | null {
  if (min === null || min === undefined || max === null || max === undefined) return null;
  return dec(min).greaterThan(dec(max))
    ? `min_stock_level ${dec(min).toFixed()} must not exceed max_stock_level ${dec(max).toFixed()}`
    : null;
}

/** Only `inventory` products are stocked; services and consumables are never counted. */
export function carriesStock(type: string): boolean {
  return type === 'inventory';
}
