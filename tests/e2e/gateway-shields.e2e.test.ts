import v8 from 'node:v8';
import vm from 'node:vm';
import { Worker } from 'node:worker_threads';
import { startTestSystem, type TestSystem } from '../support/system';

/**
 * What a request costs the gateway before it is trusted: its body is not read before its key is
 * known and its organization admitted, and then only within bounds; /health costs a ping per service
 * per second at most, however often it is asked; requests without a valid key have a budget per
 * client, the client a trusted proxy names.
 */

const MiB = 1024 * 1024;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/**
 * A thread of its own, whose heap is not this one's, holding one POST's body ready: 1 MiB of
 * `[[[…]]]` or of `[[{},{},…],…]` (arrays of 500 `{}`, within the shape limits: only their number in
 * all is too many). What this heap gains while it sends is the gateway's (it runs in this process).
 * The body is built before the thread says it is ready, so the window watched holds the send alone,
 * however slow a loaded machine makes the building.
 */
const SENDER = `
const { parentPort, workerData: o } = require('node:worker_threads');
const size = 1024 * 1024;
const objects = () => { const chunk = '[' + Array(500).fill('{}').join(',') + ']'; return '[' + Array(Math.floor(size / (chunk.length + 1))).fill(chunk).join(',') + ']'; };
const body = o.shape === 'brackets' ? '['.repeat(size / 2) + ']'.repeat(size / 2) : objects();
parentPort.once('message', () =>
  fetch(o.url + '/crm/editpatner', { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer ' + o.key }, body })
    .then(async (res) => parentPort.postMessage({ status: res.status, text: await res.text() }), (err) => parentPort.postMessage({ error: String(err) })));
parentPort.postMessage({ ready: true });
`;

/** A sender thread with its body built; `send` posts it and resolves with the answer. */
async function senderReady(
  url: string,
  key: string,
  shape: 'brackets' | 'objects',
): Promise<{ send: () => Promise<{ status: number; text: string }> }> {
  const thread = new Worker(SENDER, { eval: true, workerData: { url, key, shape } });
  const next = () =>
    new Promise<{ ready?: true; status: number; text: string; error?: string }>((resolve, reject) => {
      thread.once('error', reject);
      thread.once('message', (m) => {
        thread.off('error', reject);
        resolve(m);
      });
    });
  await next();
  return {
    send: async () => {
      const answer = next();
      thread.postMessage('go');
      const m = await answer.finally(() => void thread.terminate());
      if (m.error) throw new Error(m.error);
      return m;
    },
  };
}

/**
 * What this process's heap gained for `work`: its growth while `work` ran, less its growth over as
 * long a while with nothing sent. Whatever else the process allocates meanwhile (the services'
 * polls, a timer an earlier test file of this jest worker left running) is in both, so a slow
 * machine, which stretches the window, does not count it against the gateway.
 */
async function heapGrowthOf(work: () => Promise<unknown>): Promise<number> {
  const started = Date.now();
  const during = await heapGrowth(work);
  const idle = await heapGrowth(() => pause(Date.now() - started));
  return during - idle;
}

/** The most this process's heap held while `work` ran, above what it held (collected) before: the peak before each collection, and at the end. */
async function heapGrowth(work: () => Promise<unknown>): Promise<number> {
  gc();
  const before = process.memoryUsage().heapUsed;
  const profiler = new v8.GCProfiler();
  profiler.start();
  await work();
  const after = process.memoryUsage().heapUsed;
  const { statistics } = profiler.stop() as { statistics: Array<{ beforeGC: { heapStatistics: { usedHeapSize: number } } }> };
  const peak = Math.max(after, ...statistics.map((s) => s.beforeGC.heapStatistics.usedHeapSize));
  return peak - before;
}

/** This process's RPC calls so far, by operation, from the gateway's /metrics (counts of the client-side histogram). */
async function rpcCalls(url: string, operation: RegExp): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  let total = 0;
  for (const line of text.split('\n')) {
    const m = /^bo_rpc_client_duration_seconds_count\{([^}]*)\} (\d+)/.exec(line);
    const op = m && /operation="([^"]+)"/.exec(m[1] as string)?.[1];
    if (m && op && operation.test(op)) total += Number(m[2]);
  }
  return total;
}

describe('gateway shields: before a request is trusted', () => {
  let sys: TestSystem;
  beforeAll(async () => {
    // The services' polls run rarely: they would allocate in this process while the heap is watched.
    sys = await startTestSystem({ env: { API_KEY_CACHE_MS: '5000', OUTBOX_POLL_MS: '60000', WEBHOOKS_POLL_MS: '60000' } });
  });
  afterAll(async () => {
    await sys?.stop();
  });

  it('reads no body of a bogus key, and bounds the body of a good one: under 5 MiB of heap for 1 MiB of [[[…]]] or [{},{},…]', async () => {
    const growth: Record<string, number> = {};
    const answers: Record<string, number> = {};
    for (const [name, key, shape] of [
      ['bogus key, [[[…]]]', 'bo_bogus', 'brackets'],
      ['bogus key, [{},…]', 'bo_bogus', 'objects'],
      ['good key, [[[…]]]', sys.keys[1], 'brackets'],
      ['good key, [{},…]', sys.keys[1], 'objects'],
    ] as const) {
      const sender = await senderReady(sys.url, key, shape);
      growth[name] = await heapGrowthOf(async () => {
        answers[name] = (await sender.send()).status;
      });
    }
    console.log(
      `heap growth (MiB): ${Object.entries(growth)
        .map(([n, g]) => `${n} ${(g / MiB).toFixed(1)}`)
        .join(', ')}`,
    );
    expect(answers).toEqual({ 'bogus key, [[[…]]]': 401, 'bogus key, [{},…]': 401, 'good key, [[[…]]]': 400, 'good key, [{},…]': 413 });
    for (const [name, bytes] of Object.entries(growth)) expect([name, bytes < 5 * MiB]).toEqual([name, true]);
    // The suite runs this file beside the chaos runs on two cores, where it has taken over 30 s.
  }, 120_000);

  it('answers 200 anonymous /health calls with at most one ping per service per second, and /health/live with none', async () => {
    const services = 5;
    const pings = /\.ping$/;
    const before = await rpcCalls(sys.url, pings);
    const started = performance.now();
    // Twenty clients, ten calls each, 200 ms apart: 200 calls over about two seconds.
    const statuses = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const mine: number[] = [];
        for (let i = 0; i < 10; i++) {
          const res = await fetch(`${sys.url}/health`);
          expect(await res.json()).toMatchObject({ status: 'ok' });
          mine.push(res.status);
          await pause(200);
        }
        return mine;
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const sent = (await rpcCalls(sys.url, pings)) - before;
    console.log(`200 /health calls in ${seconds.toFixed(2)} s sent ${sent} pings`);
    expect(statuses.flat()).toEqual(Array(200).fill(200));
    // A check starts at most once a second: one per started second, and the one at the start.
    expect(sent).toBeLessThanOrEqual(services * (Math.floor(seconds) + 1));

    const live = await rpcCalls(sys.url, pings);
    for (let i = 0; i < 200; i++) expect(await (await fetch(`${sys.url}/health/live`)).json()).toEqual({ status: 'ok' });
    expect((await rpcCalls(sys.url, pings)) - live).toBe(0);
  });
});

describe('gateway shields: clients behind a trusted proxy', () => {
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startTestSystem({
      services: ['partners'],
      env: {
        // The test is the proxy: it connects from the loopback and names each client in X-Forwarded-For.
        TRUST_PROXY: '127.0.0.1, ::1',
        // One request without a valid key per client every 5 s: the test's steps fit inside one refill.
        RATE_LIMIT_ANONYMOUS_PER_SECOND: '0.2',
        API_KEY_CACHE_MS: '5000',
      },
    });
  });
  afterAll(async () => {
    await sys?.stop();
  });

  const list = (client: string, key: string | null) =>
    sys.post('/crm/partners', { org_id: '1' }, { key, headers: { 'x-forwarded-for': `198.18.0.1, ${client}` } });

  it("limits a client sending bogus keys by its own address: other clients, and the same client's good keys, keep working", async () => {
    const flooder = '203.0.113.7';
    const flood = await Promise.all(Array.from({ length: 20 }, (_, i) => list(flooder, `bo_bogus_${i}`)));
    const statuses = flood.map((r) => r.httpStatus).sort();
    expect(statuses).toEqual([401, ...Array(19).fill(429)]);
    expect(flood.find((r) => r.httpStatus === 429)?.raw.headers.get('ratelimit')).toMatch(/^"anonymous";r=0;t=\d+$/);
    // Another client behind the same proxy is its own: its first keyless request and bogus key are 401, not 429.
    expect((await list('198.51.100.9', null)).httpStatus).toBe(401);
    expect((await list('198.51.100.10', 'bo_bogus_other')).httpStatus).toBe(401);
    // Another client's good key, never seen by this gateway before, is served.
    const fresh = await sys.system.createApiKey(1);
    expect((await list('198.51.100.11', fresh)).httpStatus).toBe(200);
    // And the flooding client's own good keys, the one it has used and a new one, are not locked out.
    expect((await list(flooder, sys.keys[1])).httpStatus).toBe(200);
    expect((await list(flooder, fresh)).httpStatus).toBe(200);
    // What the client wrote left of what the proxy appended is not believed: it cannot pose as another client.
    const posing = await sys.post(
      '/crm/partners',
      { org_id: '1' },
      { key: null, headers: { 'x-forwarded-for': `198.51.100.12, ${flooder}` } },
    );
    expect(posing.httpStatus).toBe(429);
  });

  it('counts unknown paths, other methods and the routes that need no key against the client, per client', async () => {
    const client = '192.0.2.44';
    const headers = { 'x-forwarded-for': client };
    expect((await fetch(`${sys.url}/no/such/path`, { method: 'POST', headers })).status).toBe(404);
    expect((await fetch(`${sys.url}/openapi.json`, { headers })).status).toBe(429);
    expect((await fetch(`${sys.url}/health/live`, { headers })).status).toBe(429);
    expect((await fetch(`${sys.url}/health/live`, { headers: { 'x-forwarded-for': '192.0.2.45' } })).status).toBe(200);
  });
});
