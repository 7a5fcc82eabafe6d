/**
 * An endpoint's `events`: event types, `*` (every event) or a prefix of types followed by `.*`
 * (`invoicing.*`, `invoicing.invoice.*`). A pattern matches whole segments only: `invoicing.*` does
 * not match `invoicingx.a`.
 */
export function matchesAny(patterns: readonly string[], type: string): boolean {
  return patterns.some((p) => matches(p, type));
}

export function matches(pattern: string, type: string): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('.*')) return type.startsWith(pattern.slice(0, -1));
  return pattern === type;
}

/**
 * `matches` in SQL, for an endpoint's `events` (a jsonb array of patterns) and an event type: true
 * when a pattern matches the type, by the same three rules. Its agreement with `matches` is tested
 * over the database (webhooks.int.test.ts).
 */
export function matchesAnySql(patterns: string, type: string): string {
  return `exists (select 1 from jsonb_array_elements_text(${patterns}) as p(pattern)
    where p.pattern = '*' or p.pattern = ${type} or (p.pattern like '%.*' and starts_with(${type}, left(p.pattern, -1))))`;
}

/**
 * The problem of each pattern that names nothing among `known` event types, by its index: a typo
 * (`invoicing.invoice.valdated`) is refused rather than silently receiving nothing.
 */
export function patternProblems(patterns: readonly string[], known: readonly string[]): Array<{ index: number; message: string }> {
  const problems: Array<{ index: number; message: string }> = [];
  patterns.forEach((pattern, index) => {
    if (pattern !== '*' && pattern.includes('*') && !/^[^*]+\.\*$/.test(pattern)) {
      problems.push({ index, message: 'a pattern is `*` or a prefix of event types followed by `.*` (invoicing.*)' });
    } else if (!known.some((type) => matches(pattern, type))) {
      problems.push({ index, message: `matches no event type (see /asyncapi.json): ${pattern}` });
    }
  });
  return problems;
}
