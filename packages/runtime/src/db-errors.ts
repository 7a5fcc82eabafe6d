/**
 * How a database failure is told apart from a bug. PostgreSQL being down, restarting or out of
 * connections is an outage the caller may retry (503), never an internal error (500).
 */

/**
 * SQLSTATE classes that mean the database could not be reached, ran out of a resource or is going
 * away: 08 connection exception, 53 insufficient resources (disk, memory, connections), 57P
 * operator intervention (shutdown, crash, starting up, database dropped, idle timeout), 58 system error.
 */
const UNAVAILABLE_CLASSES = ['08', '53', '57P', '58'];

const UNAVAILABLE_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

const UNAVAILABLE_MESSAGES = [
  /connection terminated/i,
  /terminating connection/i,
  /not queryable/i,
  /timeout exceeded when trying to connect/i,
  /timeout acquiring a connection/i,
  /the database system is (starting up|shutting down|in recovery mode)/i,
  /Connection ended unexpectedly/i,
  /write after end/i,
];

export function isDbUnavailable(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const e = err as { code?: unknown; name?: unknown; message?: unknown; errors?: unknown };
  const code = typeof e.code === 'string' ? e.code : undefined;
  if (code && (UNAVAILABLE_CLASSES.some((c) => code.startsWith(c)) || UNAVAILABLE_ERRNOS.has(code))) return true;
  if (e.name === 'KnexTimeoutError') return true;
  // Node reports a refused connection to several addresses as an AggregateError of errno errors.
  if (Array.isArray(e.errors) && e.errors.some(isDbUnavailable)) return true;
  return typeof e.message === 'string' && UNAVAILABLE_MESSAGES.some((re) => re.test(e.message as string));
}

/**
 * A transaction PostgreSQL gave up on to keep others consistent, or that ran a prepared statement
 * a migration made stale (see prepared.ts): running it again is the remedy.
 */
export function isTransientConflict(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  return code === '40001' || code === '40P01' || isStalePlan(err);
}

/** A named prepared statement returning whole rows of a table whose columns changed since it was prepared. */
export function isStalePlan(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | undefined;
  return e?.code === '0A000' && typeof e.message === 'string' && e.message.includes('cached plan must not change result type');
}

/** Runs a transaction again when PostgreSQL aborted it for a serialization failure or a deadlock. */
export async function retryTransientConflicts<T>(work: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (attempt >= attempts || !isTransientConflict(err)) throw err;
    }
  }
}
