import { dec, type Dec } from '@bo/kernel';

export interface AdjustmentLine {
  locationId: number;
  previous: Dec;
  next: Dec;
  change: Dec;
}

/**
 * Turns target quantities into move lines: one per named location, in the order given, with the
 * change each makes. Unchanged locations stay in the move (change 0) because a count that found
 * nothing to correct is still a stock check.
 */
export function computeAdjustment(current: ReadonlyMap<number, string>, targets: ReadonlyArray<[number, string]>): AdjustmentLine[] {
  return targets.map(([locationId, target]) => {
    const previous = dec(current.get(locationId) ?? '0');
    const next = dec(target);
    return { locationId, previous, next, change: next.minus(previous) };
  });
}

/**
 * Editing a product's `stock` sets the product's total; only the default location moves. The
 * default location must therefore hold the total minus what the other locations hold, or null when
 * that would be negative (the other locations already hold more than the requested total).
 */
export function defaultLocationTarget(requestedTotal: string, currentTotal: string, defaultQuantity: string): Dec | null {
  const elsewhere = dec(currentTotal).minus(dec(defaultQuantity));
  const target = dec(requestedTotal).minus(elsewhere);
  return target.isNegative() ? null : target;
}
