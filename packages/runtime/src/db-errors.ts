/**
 * How a database failure is told apart from a bug. PostgreSQL being down, restarting or out of
 * connections is an outage the caller may retry (503), never an internal error (500).
 */

/** SQLSTATE classes and codes that mean the database could not be reached or is going away. */
const UNAVAILABLE_STATES = new Set([
  '57P01', // admin_shutdown: the server is restarting
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: starting up or shutting down
  '53300', // too_many_connections
  '53000', // insufficient_resources
  '58000', // system_error
  '58030', // io_error
]);

const UNAVAILABLE_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

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
  if (code && (UNAVAILABLE_STATES.has(code) || code.startsWith('08') || UNAVAILABLE_ERRNOS.has(code))) return true;
  if (e.name === 'KnexTimeoutError') return true;
  // Node reports a refused connection to several addresses as an AggregateError of errno errors.
  if (Array.isArray(e.errors) && e.errors.some(isDbUnavailable)) return true;
  return typeof e.message === 'string' && UNAVAILABLE_MESSAGES.some((re) => re.test(e.message as string));
}

/** A transaction PostgreSQL gave up on to keep others consistent; running it again is the remedy. */
export function isTransientConflict(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  return code === '40001' || code === '40P01';
}
