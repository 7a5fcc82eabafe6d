/** Date-times go out as `YYYY-MM-DDTHH:MM:SS` in UTC, dates as `YYYY-MM-DD` (DESIGN.md section 3). */
export function formatDateTime(value: Date | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const date = value instanceof Date ? value : new Date(value);
  return date.toISOString().slice(0, 19);
}

export function formatDate(value: Date | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value.slice(0, 10);
  return value.toISOString().slice(0, 10);
}

/** Today's date in UTC as `YYYY-MM-DD`. */
export function today(now: Date = new Date()): string {
  return now.toISOString().slice(0, 10);
}

/** A `YYYY-MM-DDTHH:MM:SS` date-time read as UTC. */
export function parseDateTime(value: string): Date {
  return new Date(`${value}Z`);
}
