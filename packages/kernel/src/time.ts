/** Date-times go out as `YYYY-MM-DDTHH:MM:SS` in UTC, dates as `YYYY-MM-DD` (docs/design.md section 3). */
export function formatDateTime(value: Date | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const date = value instanceof Date ? value : new Date(value);
  const year = date.getUTCFullYear();
  // Built from the fields: a third of toISOString().slice()'s cost, and lists write two per row.
  // Other years (and an invalid date, which throws) take toISOString's path.
  if (!(year >= 1000 && year <= 9999)) return date.toISOString().slice(0, 19);
  return `${year}-${twoDigits(date.getUTCMonth() + 1)}-${twoDigits(date.getUTCDate())}T${twoDigits(date.getUTCHours())}:${twoDigits(
    date.getUTCMinutes(),
  )}:${twoDigits(date.getUTCSeconds())}`;
}

/**
 * SQL of formatDateTime's text of a timestamptz `expression`, for a time a statement writes and its
 * reply or event carries (a one-statement write fills it in): the same text for years 1000 to 9999.
 */
export function formatDateTimeSql(expression: string): string {
  return `to_char((${expression}) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS')`;
}

function twoDigits(n: number): string {
  return n < 10 ? `0${n}` : `${n}`;
}

export function formatDate(value: Date | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value.slice(0, 10);
  return value.toISOString().slice(0, 10);
}

const systemClock = (): Date => new Date();
let clock: () => Date = systemClock;

/**
 * The instant every business "now" is read from (today's date, overdue, expiry, the scheduler,
 * default document dates). Only tests move it, with `setClock`, so behaviour around midnight can be
 * shown without waiting for midnight; timestamps of rows and events keep PostgreSQL's and the
 * machine's own clock.
 */
export function currentTime(): Date {
  return clock();
}

/** Test hook: every later `currentTime()` answers `at` (or `at()`); `setClock()` goes back to the machine's clock. */
export function setClock(at?: Date | (() => Date)): void {
  clock = at === undefined ? systemClock : typeof at === 'function' ? at : () => new Date(at.getTime());
}

/** Today's date in UTC as `YYYY-MM-DD`. */
export function today(now: Date = currentTime()): string {
  return now.toISOString().slice(0, 10);
}

/** A `YYYY-MM-DDTHH:MM:SS` date-time read as UTC. */
export function parseDateTime(value: string): Date {
  return new Date(`${value}Z`);
}

/** The shape of an IANA time zone name (`Europe/Paris`, `UTC`); contracts' request pattern is made of it. */
export const IANA_TIME_ZONE_NAME = /^(UTC|[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*)$/;

/** An IANA time zone name Intl knows (`Europe/Paris`, `UTC`); offsets such as `+02:00` are not names. */
export function isTimeZone(zone: string): boolean {
  if (!IANA_TIME_ZONE_NAME.test(zone)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** A formatter giving the wall-clock fields of an instant in `zone`; undefined for a zone Intl does not know. */
function formatterFor(zone: string): Intl.DateTimeFormat | undefined {
  const known = formatters.get(zone);
  if (known) return known;
  if (!isTimeZone(zone)) return undefined;
  try {
    const made = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(zone, made);
    return made;
  } catch {
    return undefined;
  }
}

/**
 * The wall-clock date-time `YYYY-MM-DDTHH:MM:SS` of `instant` in `zone` (an IANA name; null or
 * undefined means UTC). Daylight saving follows the zone's rules for that instant.
 */
export function localDateTime(instant: Date, zone?: string | null): string {
  if (!zone || zone === 'UTC') return instant.toISOString().slice(0, 19);
  const formatter = formatterFor(zone);
  if (!formatter) throw new RangeError(`Unknown time zone ${zone}`);
  const part: Record<string, string> = {};
  for (const p of formatter.formatToParts(instant)) part[p.type] = p.value;
  // Years before 1000 or after 9999 are not business dates; pad anyway so the shape holds.
  return `${(part.year ?? '').padStart(4, '0')}-${part.month}-${part.day}T${part.hour}:${part.minute}:${part.second}`;
}

/** The calendar date `YYYY-MM-DD` of `instant` in `zone` (UTC when none): the organization's "today". */
export function localDate(instant: Date, zone?: string | null): string {
  return localDateTime(instant, zone).slice(0, 10);
}
