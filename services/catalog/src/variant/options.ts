/**
 * A canonical text for an option combination: names trimmed and sorted, so {"size":"M","color":"red"}
 * and {"color":"red","size":"M"} are the same variant of a product. Names compare case-insensitively.
 */
export function optionsKey(options: Record<string, string>): string {
  const entries = Object.entries(options)
    .map(([name, value]) => [name.trim().toLowerCase(), value.trim().toLowerCase()] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify(entries);
}

/** Duplicate option names after trimming and case-folding ("Color" and "color ") are ambiguous. */
export function duplicateOptionName(options: Record<string, string>): string | null {
  const seen = new Set<string>();
  for (const name of Object.keys(options)) {
    const key = name.trim().toLowerCase();
    if (seen.has(key)) return name;
    seen.add(key);
  }
  return null;
}
