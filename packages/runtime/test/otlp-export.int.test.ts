import { execFile } from 'node:child_process';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

/**
 * With OTEL_EXPORTER_OTLP_ENDPOINT's value, finished spans are POSTed to <endpoint>/v1/traces over
 * OTLP/HTTP. Run in a plain node process on the build: the exporter loads `http` with a dynamic
 * import, which jest's module sandbox does not run.
 */
describe('OTLP export', () => {
  let server: Server;
  const received: Array<{ url?: string; type?: string; body: string }> = [];
  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ url: req.url, type: req.headers['content-type'], body: Buffer.concat(chunks).toString() });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise((r) => server.close(r)));

  it('sends the spans of a process to the collector', async () => {
    const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const tracing = join(__dirname, '../dist/observability/tracing.js');
    const script = `
      const t = require(${JSON.stringify(tracing)});
      if (!t.startTracing({ endpoint: ${JSON.stringify(endpoint)} })) process.exit(2);
      t.startSpan('partners', 'exported span', t.SpanKind.INTERNAL).end();
      t.stopTracing().then(() => process.exit(0));`;
    await new Promise<void>((resolve, reject) =>
      execFile(process.execPath, ['-e', script], { timeout: 20_000 }, (err: Error | null) => (err ? reject(err) : resolve())),
    );
    expect(received).toEqual([expect.objectContaining({ url: '/v1/traces', type: 'application/json' })]);
    expect(received[0]!.body).toContain('exported span');
    expect(received[0]!.body).toContain('partners');
  });
});
