import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { Target } from './target';

export interface Attempt {
  /** The receiver's status, when it answered. */
  status?: number;
  /** Why there was no usable answer: a refused target, a connection error, the timeout. */
  error?: string;
  durationMs: number;
  /** The start of the answer's body (at most the limit read). */
  excerpt?: string;
}

/** What the log keeps of a receiver's answer. */
const EXCERPT_CHARS = 1024;

/**
 * One POST of a webhook to the checked address, with the URL's host in the Host header and TLS
 * name (SNI, certificate check): no second lookup, no redirects followed (a 3xx is an answer like
 * any other non-2xx), the whole attempt bounded by `timeoutMs`, and no more than `maxBytes` of the
 * answer read.
 */
export function postWebhook(
  url: URL,
  target: Extract<Target, { ok: true }>,
  body: string,
  headers: Record<string, string>,
  opts: { timeoutMs: number; maxBytes: number },
): Promise<Attempt> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const pinned: LookupFunction = (_host, options, callback) => {
    if (options.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<Attempt>((resolve) => {
    let settled = false;
    let answered: number | undefined;
    const finish = (attempt: Omit<Attempt, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...attempt, durationMs: elapsed() });
    };
    const req = client.request(
      {
        protocol: url.protocol,
        hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        lookup: pinned,
        agent: false,
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': 'backoffice-webhooks/1',
        },
      },
      (res) => {
        const status = res.statusCode ?? 0;
        answered = status;
        const chunks: Buffer[] = [];
        let read = 0;
        const done = () => {
          finish({ status, excerpt: Buffer.concat(chunks).toString('utf8').slice(0, EXCERPT_CHARS) });
          res.destroy();
        };
        res.on('data', (chunk: Buffer) => {
          if (read < opts.maxBytes) chunks.push(chunk.subarray(0, opts.maxBytes - read));
          read += chunk.length;
          // Enough of it: the rest is never read.
          if (read >= opts.maxBytes) done();
        });
        res.on('end', done);
        res.on('error', done);
      },
    );
    const timer = setTimeout(() => {
      // An answer whose body is still coming counts by its status; the rest is not waited for.
      finish(answered === undefined ? { error: `no answer within ${opts.timeoutMs} ms` } : { status: answered });
      req.destroy();
    }, opts.timeoutMs);
    // The error says the URL's host where it said the address connected to: no answer names an address.
    req.on('error', (err) => finish({ error: err.message.split(target.address).join(url.hostname) }));
    req.end(body);
  });
}
