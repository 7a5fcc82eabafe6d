import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Api } from './api';

/**
 * The seeding client against a stand-in gateway: an answer that leaves the outcome open is asked
 * again under the key the gateway gave, and only then; a refusal is not.
 */
describe('Api.ok', () => {
  let server: Server;
  let base: string;
  const seen: Array<string | undefined> = [];
  let answers: number[] = [];

  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res) => {
      seen.push(req.headers['idempotency-key'] as string | undefined);
      const status = answers.shift() ?? 200;
      res.writeHead(status, { 'content-type': 'application/json', 'idempotency-key': 'k-1' });
      res.end(JSON.stringify({ statusCode: status, body: { made: status === 200 } }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));
  beforeEach(() => {
    seen.length = 0;
  });

  it('asks again under the first answer’s Idempotency-Key after a 504, a 503 and a 409 while the first runs', async () => {
    answers = [504, 503, 409];
    await expect(new Api(base, 't').ok('/x', {})).resolves.toEqual({ made: true });
    expect(seen).toEqual([undefined, 'k-1', 'k-1', 'k-1']);
  });

  it('throws a refusal at once, and gives up after five open answers', async () => {
    answers = [400];
    await expect(new Api(base, 't').ok('/x', {})).rejects.toThrow(/answered 400 \(attempt 1\)/);
    expect(seen).toHaveLength(1);
    answers = [504, 504, 504, 504, 504];
    await expect(new Api(base, 't').ok('/x', {})).rejects.toThrow(/answered 504 \(attempt 5\)/);
  }, 20_000);
});
