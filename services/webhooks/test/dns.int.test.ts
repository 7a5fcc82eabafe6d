import { pbkdf2 } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { FakeDns, startTestService, type TestService } from '@bo/testkit';
import { webhooksService } from '../src';
import { dnsResolver, LookupFailure } from '../src/delivery/target';

/**
 * Target names are looked up through c-ares (dns.Resolver) against the nameservers configured, each
 * lookup bounded by WEBHOOKS_DNS_TIMEOUT_MS: a nameserver that never answers (a UDP socket that
 * reads every query and answers none) holds nothing of the process's thread pool, and an endpoint's
 * host that does not resolve is refused at create and update.
 */
describe('a target lookup', () => {
  let dns: FakeDns;
  let silent: FakeDns;
  beforeAll(async () => {
    dns = await new FakeDns({ 'hooks.example.com': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'] }).start();
    silent = await new FakeDns().start();
    silent.silence();
  });
  afterAll(async () => {
    await dns.stop();
    await silent.stop();
  });

  it('answers every address of a name, and says a name that does not exist is absent', async () => {
    const resolve = dnsResolver({ timeoutMs: 2000, servers: [dns.server] });
    expect(await resolve('hooks.example.com')).toEqual([
      { address: '93.184.215.14', family: 4 },
      { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 },
    ]);
    await expect(resolve('nowhere.example.com')).rejects.toMatchObject({ kind: 'absent' });
  });

  it('ends by its timeout when the nameserver never answers, while files and crypto of the process go on', async () => {
    const resolve = dnsResolver({ timeoutMs: 1500, servers: [silent.server] });
    const started = performance.now();
    const lookups = Array.from({ length: 16 }, (_, i) =>
      resolve(`hang-${i}.example.com`).then(
        () => 'answered',
        (err: unknown) => [err instanceof LookupFailure ? err.kind : String(err), performance.now() - started] as const,
      ),
    );
    let pending = true;
    void Promise.all(lookups).then(() => (pending = false));
    // Work of libuv's thread pool (4 threads, which getaddrinfo would hold for as long as the nameserver hangs).
    await Promise.all([
      ...Array.from(
        { length: 8 },
        () => new Promise((resolve, reject) => pbkdf2('x', 'salt', 1000, 32, 'sha256', (e, k) => (e ? reject(e) : resolve(k)))),
      ),
      ...Array.from({ length: 8 }, () => readFile(__filename)),
    ]);
    const threadPoolMs = performance.now() - started;
    expect(pending).toBe(true);
    expect(threadPoolMs).toBeLessThan(1000);
    const ended = await Promise.all(lookups);
    for (const [kind, ms] of ended as Array<readonly [string, number]>) {
      expect(kind).toBe('unanswered');
      expect(ms).toBeGreaterThanOrEqual(1450);
      expect(ms).toBeLessThan(2500);
    }
    // Each was asked of the silent nameserver, A and AAAA.
    expect(new Set(silent.queries).size).toBe(16);
  });
});

describe('an endpoint target checked at create and update', () => {
  let dns: FakeDns;
  let svc: TestService;
  beforeAll(async () => {
    dns = await new FakeDns({
      'hooks.example.com': ['93.184.215.14'],
      'internal.example.com': ['93.184.215.14', '10.0.0.7'],
      'hang.example.com': 'silent',
    }).start();
    svc = await startTestService(webhooksService, {
      WEBHOOKS_SECRET_KEYS: 'test:a test key of thirty-two characters or more',
      WEBHOOKS_DNS_SERVERS: dns.server,
      WEBHOOKS_DNS_TIMEOUT_MS: '500',
    });
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
    await dns.stop();
  });

  const create = (url: string) => svc.call('webhooks.endpoint.create', { userid: 'u1', action: 'create', url, events: ['partners.*'] });

  it('takes a host that resolves to public addresses only', async () => {
    expect(await create('https://hooks.example.com/in')).toMatchObject({ ok: true, status: 200 });
    expect(dns.queries).toContain('hooks.example.com');
  });

  it('refuses a host that does not resolve, at create and at update, naming the field', async () => {
    expect(await create('https://nowhere.example.com/in')).toMatchObject({
      status: 400,
      code: 'validation_failed',
      errors: [{ field: 'url', message: expect.stringMatching(/^host nowhere\.example\.com does not resolve/) }],
    });
    const made = await create('https://hooks.example.com/other');
    const id = (made as unknown as { body: { endpoint: { id: number } } }).body.endpoint.id;
    const moved = await svc.call('webhooks.endpoint.update', {
      userid: 'u1',
      action: 'update',
      endpoint_id: id,
      url: 'https://gone.example.com/x',
    });
    expect(moved).toMatchObject({ status: 400, errors: [{ field: 'url' }] });
    expect(await svc.db('endpoints').where({ id }).first('url')).toEqual({ url: 'https://hooks.example.com/other' });
  });

  it('refuses a host with a private address among its answers without saying which', async () => {
    const refused = await create('https://internal.example.com/in');
    expect(refused).toMatchObject({
      status: 400,
      errors: [{ field: 'url', message: 'resolves to a loopback, private, link-local or reserved address' }],
    });
    expect(JSON.stringify(refused)).not.toContain('10.0.0.7');
  });

  it('answers a retryable 503 within the lookup timeout when the nameserver never answers, and creates nothing', async () => {
    const before = await svc.db('endpoints').count({ n: '*' });
    const started = performance.now();
    const refused = await create('https://hang.example.com/in');
    const ms = performance.now() - started;
    expect(refused).toMatchObject({ ok: false, status: 503, code: 'service_unavailable', transient: true });
    expect(ms).toBeGreaterThanOrEqual(450);
    expect(ms).toBeLessThan(2000);
    expect(await svc.db('endpoints').count({ n: '*' })).toEqual(before);
  });
});
