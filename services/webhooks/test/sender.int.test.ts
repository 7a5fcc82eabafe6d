import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { postWebhook } from '../src/delivery/sender';

/**
 * One attempt against a real HTTP server on 127.0.0.1, reached by a host name that resolves nowhere:
 * the attempt connects to the address it was given (the one the target check resolved), follows no
 * redirect, reads an answer only up to its limit, and ends by its timeout.
 */
describe('a webhook attempt', () => {
  let server: Server;
  let port: number;
  let answer: (req: IncomingMessage, res: ServerResponse) => void;
  const seen: Array<{ path: string; host: string; body: string }> = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen.push({ path: req.url ?? '', host: req.headers.host ?? '', body: Buffer.concat(chunks).toString('utf8') });
        answer(req, res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterEach(() => {
    seen.length = 0;
    server.closeAllConnections();
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const pinned = { ok: true, address: '127.0.0.1', family: 4 } as const;
  const send = (path: string, opts = { timeoutMs: 5000, maxBytes: 4096 }) =>
    postWebhook(new URL(`http://hooks.invalid:${port}${path}`), pinned, '{"id":"e1"}', { 'webhook-id': 'e1' }, opts);

  it('connects to the checked address, with the URL host in the Host header (no second lookup)', async () => {
    answer = (_req, res) => res.writeHead(204).end();
    expect(await send('/in?x=1')).toMatchObject({ status: 204 });
    expect(seen).toEqual([{ path: '/in?x=1', host: `hooks.invalid:${port}`, body: '{"id":"e1"}' }]);
  });

  it('takes a redirect as the answer: a failure, never followed', async () => {
    answer = (req, res) => (req.url === '/in' ? res.writeHead(302, { location: '/elsewhere' }).end() : res.writeHead(200).end());
    const attempt = await send('/in');
    expect(attempt).toMatchObject({ status: 302 });
    expect(seen.map((s) => s.path)).toEqual(['/in']);
  });

  it('reads an answer only up to the limit, and ends without waiting for the rest', async () => {
    // An answer that never ends: 1 kB chunks for as long as the connection lasts.
    answer = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const more = () => {
        while (!res.destroyed && res.write('x'.repeat(1024)));
        if (!res.destroyed) res.once('drain', more);
      };
      more();
    };
    const attempt = await send('/in', { timeoutMs: 10_000, maxBytes: 8192 });
    // Ended by the limit (the timeout would have left no excerpt), with at most 1 kB kept.
    expect(attempt.status).toBe(200);
    expect(attempt.excerpt).toBe('x'.repeat(1024));
    expect(attempt.durationMs).toBeLessThan(10_000);
  });

  it('gives up on a receiver that does not answer within the timeout', async () => {
    answer = () => undefined;
    const attempt = await send('/in', { timeoutMs: 300, maxBytes: 4096 });
    expect(attempt).toMatchObject({ error: 'no answer within 300 ms' });
    expect(attempt.status).toBeUndefined();
    expect(attempt.durationMs).toBeGreaterThanOrEqual(290);
  });

  it('names the URL host, never the address it connected to, when the connection fails', async () => {
    // A port nothing listens on: refused at once.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const unused = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const attempt = await postWebhook(new URL(`http://hooks.invalid:${unused}/in`), pinned, '{}', {}, { timeoutMs: 5000, maxBytes: 4096 });
    expect(attempt.error).toBe(`connect ECONNREFUSED hooks.invalid:${unused}`);
  });
});
