/** Nearest-rank percentile of ascending values; 0 for none. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] as number;
}

/** a / b, or undefined when either is missing or b is 0. */
export function ratio(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined || b === undefined || b === 0) return undefined;
  return a / b;
}

export function round(value: number, digits = 0): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** The median of the defined values (the mean of the middle two for an even count); undefined for none. */
export function median(values: ReadonlyArray<number | undefined>): number | undefined {
  const sorted = values.filter((v): v is number => v !== undefined && Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return undefined;
  const half = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[half] : ((sorted[half - 1] as number) + (sorted[half] as number)) / 2;
}
