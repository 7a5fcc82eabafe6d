import pg from 'pg';

/** One request of a fuzz run, as sent. */
export interface FuzzRequest {
  path: string;
  /** The JSON text of the body (possibly not an object, possibly 1 MiB). */
  body: string;
  /** Which organization's API key authorizes it. */
  org: 1 | 2;
  headers?: Record<string, string>;
  /** What made it, for the report. */
  label: string;
  /** The operation's own body limit where it states one (`x-max-body-bytes`). */
  maxBodyBytes?: number;
}

export interface FuzzResult {
  request: FuzzRequest;
  status: number;
  /** The parsed envelope, or undefined when the answer was not JSON. */
  envelope: any;
  /** Every way the answer breaks the rules; empty when it keeps them. */
  problems: string[];
}

/** Every rule an answer keeps, whatever was asked: never a 5xx, and an envelope well formed in every part. */
export function envelopeProblems(status: number, text: string): { envelope: any; problems: string[] } {
  const problems: string[] = [];
  if (status >= 500) problems.push(`HTTP ${status}`);
  let env: any;
  try {
    env = JSON.parse(text);
  } catch {
    return { envelope: undefined, problems: [...problems, `answer is not JSON: ${text.slice(0, 200)}`] };
  }
  if (env === null || typeof env !== 'object' || Array.isArray(env))
    return { envelope: env, problems: [...problems, 'envelope is not an object'] };
  if (env.statusCode !== status) problems.push(`statusCode ${env.statusCode} differs from HTTP ${status}`);
  if (env.headers === null || typeof env.headers !== 'object' || Array.isArray(env.headers)) problems.push('headers is not an object');
  else if (Object.values(env.headers).some((v) => typeof v !== 'string')) problems.push('a header value is not a string');
  const body = env.body;
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    return { envelope: env, problems: [...problems, 'body is not an object'] };
  if (typeof body.message !== 'string') problems.push('body.message is not a string');
  if (status >= 400) {
    if (typeof body.code !== 'string') problems.push('error without a string body.code');
    if (body.errors !== undefined) {
      if (!Array.isArray(body.errors)) problems.push('body.errors is not an array');
      else if (!body.errors.every((e: any) => e && typeof e.field === 'string' && typeof e.message === 'string'))
        problems.push('an entry of body.errors is not { field, message }');
    }
  }
  return { envelope: env, problems };
}

export async function send(url: string, keys: Record<1 | 2, string>, req: FuzzRequest): Promise<FuzzResult> {
  const res = await fetch(url + req.path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${keys[req.org]}`, ...req.headers },
    body: req.body,
  });
  const text = await res.text();
  const { envelope, problems } = envelopeProblems(res.status, text);
  return { request: req, status: res.status, envelope, problems };
}

/** Sends every request with at most `concurrency` in flight. */
export async function sendAll(
  url: string,
  keys: Record<1 | 2, string>,
  requests: FuzzRequest[],
  concurrency: number,
): Promise<FuzzResult[]> {
  const results: FuzzResult[] = new Array(requests.length);
  let next = 0;
  const worker = async () => {
    while (next < requests.length) {
      const i = next++;
      results[i] = await send(url, keys, requests[i] as FuzzRequest);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return results;
}

// Finding control characters, to write them as escapes, is this pattern's job.
// eslint-disable-next-line no-control-regex
const UNPRINTABLE = /[\u0000-\u001F\u007F-\u009F\u2028\u2029\u202A-\u202E\u2066-\u2069\uD800-\uDFFF\uFFFE\uFFFF]/gu;

/** Text made safe for a terminal and a test report: control and bidi characters and lone surrogates as \uXXXX. */
export function safeText(text: string, max = 300): string {
  const short = text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;
  return short.replace(UNPRINTABLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A failure as a person reads it: what was sent (cut short) and what came back. */
export function describeFailure(r: FuzzResult): string {
  const answer = JSON.stringify(r.envelope?.body ?? r.envelope) ?? 'nothing';
  return [
    safeText(r.request.label, 200),
    `  POST ${r.request.path} as org ${r.request.org} ${safeText(JSON.stringify(r.request.headers ?? {}))}`,
    `  ${safeText(r.request.body)}`,
    `  → ${r.status} ${safeText(answer, 400)}`,
    `  problems: ${r.problems.join('; ')}`,
  ].join('\n');
}

/** Tables that record how the system works rather than what the business holds. */
export const BOOKKEEPING_TABLES = ['inbox', 'outbox', 'idempotency', 'schema_migrations', 'event_deliveries', 'event_dead_letters'];
export const SERVICE_SCHEMAS = ['partners', 'catalog', 'sales', 'invoicing'];

/** Row count and an md5 over the rows in a fixed order, per business table of every service schema. */
export async function snapshot(client: pg.Client): Promise<Record<string, string>> {
  const { rows: tables } = await client.query<{ schema: string; table: string }>(
    `select table_schema as schema, table_name as table from information_schema.tables
      where table_schema = any($1) and table_type = 'BASE TABLE' and not (table_name = any($2))
      order by 1, 2`,
    [SERVICE_SCHEMAS, BOOKKEEPING_TABLES],
  );
  const out: Record<string, string> = {};
  for (const { schema, table } of tables) {
    const q = `select count(*)::text as n, md5(coalesce(string_agg(t::text, E'\\n' order by t::text), '')) as h from "${schema}"."${table}" t`;
    const { rows } = await client.query<{ n: string; h: string }>(q);
    out[`${schema}.${table}`] = `${rows[0]?.n} ${rows[0]?.h}`;
  }
  return out;
}

/** Waits until events in flight have landed: every outbox drained and two snapshots alike. */
export async function settle(client: pg.Client, timeoutMs = 20_000): Promise<Record<string, string>> {
  const deadline = Date.now() + timeoutMs;
  let last = await snapshot(client);
  for (;;) {
    await new Promise((r) => setTimeout(r, 300));
    const pending: number[] = [];
    for (const s of SERVICE_SCHEMAS)
      pending.push(Number((await client.query(`select count(*) as n from "${s}".outbox where published_at is null`)).rows[0].n));
    const now = await snapshot(client);
    if (pending.every((n) => n === 0) && JSON.stringify(now) === JSON.stringify(last)) return now;
    if (Date.now() > deadline) throw new Error(`the system did not settle: ${pending.join(', ')} events unsent`);
    last = now;
  }
}
