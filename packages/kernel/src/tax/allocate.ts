import { Dec, sum } from '../money';

/**
 * Splits `total` (a whole number of `unit`s) into one share per weight, each a whole number of
 * `unit`s, adding up to `total` exactly: the largest-remainder method. Each share is its exact part
 * rounded down or up, the units left over going to the largest remainders (the earlier share on a tie).
 *
 * The exact parts: weights of one sign share `total` in proportion, so a share is never of the other
 * sign than the total; weights of both signs, or all zero, each take their own value plus an equal
 * part of the difference between `total` and their sum.
 */
export function allocate(total: Dec, weights: readonly Dec[], unit: Dec): Dec[] {
  if (weights.length === 0) {
    if (!total.isZero()) throw new Error(`cannot allocate ${total.toFixed()} over no weights`);
    return [];
  }
  const weightSum = sum([...weights]);
  const oneSign = weights.every((w) => w.gte(0)) || weights.every((w) => w.lte(0));
  const exact =
    oneSign && !weightSum.isZero()
      ? weights.map((w) => total.times(w).div(weightSum))
      : weights.map((w) => w.plus(total.minus(weightSum).div(weights.length)));
  const units = exact.map((e) => e.div(unit));
  const floors = units.map((u) => u.floor());
  const left = total.div(unit).minus(sum(floors)).toNumber();
  if (!Number.isInteger(left) || left < 0 || left > weights.length) {
    throw new Error(`allocation left ${left} units over ${weights.length} shares`);
  }
  const byRemainder = units
    .map((u, i) => ({ i, remainder: u.minus(floors[i] ?? 0) }))
    .sort((a, b) => b.remainder.comparedTo(a.remainder) || a.i - b.i);
  const shares = floors.map((f) => new Dec(f));
  for (const { i } of byRemainder.slice(0, left)) shares[i] = (shares[i] ?? new Dec(0)).plus(1);
  return shares.map((s) => s.times(unit));
}
