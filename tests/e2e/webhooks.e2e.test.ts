import { spawnSync } from 'node:child_process';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { newProducts } from '../support/catalog';
import { eventually, refusal, startTestSystem, type TestSystem } from '../support/system';
import { WebhookReceiver } from '../support/webhook-receiver';

/**
 * Webhooks end to end (issue 32): the whole system over RabbitMQ and PostgreSQL, and receivers the
 * test runs on 127.0.0.1 (hence WEBHOOKS_ALLOW_HTTP and WEBHOOKS_ALLOW_PRIVATE). The retry schedule is
 * shortened to a few seconds, which stands in for the day-long one: "down for two minutes" is a
 * receiver down for several retries.
 */
describe('webhooks', () => {
  let sys: TestSystem;
  let product: number;
  const receivers: WebhookReceiver[] = [];
  const receiver = async () => {
    const r = await new WebhookReceiver().start();
    receivers.push(r);
    return r;
  };
  const hooks = () => sys.client.webhooks;

  beforeAll(async () => {
    sys = await startTestSystem({
      env: {
        WEBHOOKS_ALLOW_HTTP: '1',
        WEBHOOKS_ALLOW_PRIVATE: '1',
        WEBHOOKS_TIMEOUT_MS: '4000',
        WEBHOOKS_POLL_MS: '100',
        WEBHOOKS_RETRY_SCHEDULE_MS: '100,200,400,600,800,1000,1000,1000,1000,1000',
      },
    });
    [product] = (await newProducts(sys, ['Consulting'])) as [number];
  }, 60_000);
  afterAll(async () => {
    for (const r of receivers) await r.stop();
    await sys?.stop();
  });

  const endpoint = async (url: string, events: string[], org: 1 | 2 = 1) =>
    sys.clientOf(org).webhooks.endpoint.create({ org_id: String(org), userid: 'u1', url, events, description: 'test receiver' });
  const partner = async (name: string, org: 1 | 2 = 1) =>
    (await sys.clientOf(org).partners.partner.create({ org_id: String(org), userid: 'u1', partnername: name, partner_type: 'customer' }))
      .partner;
  const deliveries = async (endpointId: number, org: 1 | 2 = 1) =>
    (await sys.clientOf(org).webhooks.delivery.list({ org_id: String(org), endpoint_id: endpointId, page_size: 100 })).deliveries;

  it('delivers a validated invoice signed as Standard Webhooks says, to the endpoints whose patterns match it', async () => {
    const invoices = await receiver();
    const crm = await receiver();
    const { endpoint: a, secret } = await endpoint(invoices.url, ['invoicing.invoice.validated']);
    const { endpoint: b } = await endpoint(crm.url, ['partners.*']);
    expect(secret).toMatch(/^whsec_/);
    expect(a).toMatchObject({ status: 'enabled', events: ['invoicing.invoice.validated'], previous_secret_expires_at: null });

    const customer = await partner('Webhook Customer');
    const { invoice } = await sys.client.invoicing.invoice.create({
      org_id: '1',
      userid: 'u1',
      invoicetype: 'invoiceout',
      partner: customer.id,
      line_items: [{ product_id: product, quantity: 2, price: 50, tax_rate: 0, tax_included: false }],
    });
    await sys.client.invoicing.invoice.validate({ org_id: '1', userid: 'u1', id: invoice.id });

    const [hook] = await eventually(() => {
      const got = invoices.ofType('invoicing.invoice.validated');
      if (!got.length) throw new Error('not delivered yet');
      return got;
    });
    // The reference library checks the signature, the id and the timestamp's freshness.
    const verified = new Webhook(secret).verify(hook!.body, hook!.headers as Record<string, string>) as Record<string, any>;
    expect(verified).toMatchObject({ type: 'invoicing.invoice.validated', org_id: 1, data: { invoice_id: invoice.id, invoicetotal: 100 } });
    expect(hook!.headers['webhook-id']).toBe(verified['id']);
    expect(Object.keys(verified).sort()).toEqual(['created_at', 'data', 'id', 'org_id', 'type']);
    expect(invoices.hooks.every((h) => h.payload.type === 'invoicing.invoice.validated')).toBe(true);

    // The partner endpoint's rows were queued in the same transactions: it has the partner, never the invoice.
    await eventually(() => expect(crm.ofType('partners.partner.created').map((h) => h.payload.data['id'])).toContain(customer.id));
    expect((await deliveries(b.id)).map((d) => d.event_type).every((t) => t.startsWith('partners.'))).toBe(true);
    expect(crm.hooks.every((h) => h.payload.type.startsWith('partners.'))).toBe(true);
    const [logged] = (await deliveries(a.id)).filter((d) => d.event_type === 'invoicing.invoice.validated');
    expect(logged).toMatchObject({
      status: 'delivered',
      attempts: 1,
      last_http_status: 200,
      next_attempt_at: null,
      event_id: verified['id'],
    });
  });

  it('refuses event names that match nothing, naming each', async () => {
    const r = await receiver();
    const refused = await refusal(endpoint(r.url, ['invoicing.*', 'invoicing.invoice.valdated', 'nothing.*']));
    expect(refused).toMatchObject({ status: 400, code: 'validation_failed' });
    expect(refused.errors.map((e) => e.field)).toEqual(['events.1', 'events.2']);
  });

  it('keeps the old secret signing beside the new one for the overlap after a rotation', async () => {
    const r = await receiver();
    const { endpoint: e, secret: old } = await endpoint(r.url, ['partners.partner.created']);
    const rotated = await hooks().endpoint.rotateSecret({ org_id: '1', userid: 'u1', endpoint_id: e.id });
    expect(rotated.secret).not.toBe(old);
    expect(rotated.endpoint.previous_secret_expires_at).not.toBeNull();
    const { delivery } = await hooks().endpoint.test({ org_id: '1', userid: 'u1', endpoint_id: e.id });
    const ping = await eventually(() => {
      const found = r.ofType('webhook.ping').find((h) => h.headers['webhook-id'] === delivery.event_id);
      if (!found) throw new Error('no ping yet');
      return found;
    });
    for (const secret of [old, rotated.secret])
      expect(new Webhook(secret).verify(ping.body, ping.headers as Record<string, string>)).toMatchObject({ type: 'webhook.ping' });
    // Never listed: no secret in any answer but create's and rotate's.
    const listed = await hooks().endpoint.list({ org_id: '1' });
    expect(JSON.stringify(listed)).not.toContain('whsec_');
    // Stored sealed (AES-GCM under the first key of WEBHOOKS_SECRET_KEYS, its id beside), neither secret in the clear.
    const db = new pg.Client({ connectionString: sys.databaseUrl });
    await db.connect();
    try {
      const { rows } = await db.query('select secret, previous_secret from webhooks.endpoints where id = $1', [e.id]);
      const stored = JSON.stringify(rows);
      expect(rows[0]).toEqual({ secret: expect.stringMatching(/^v2:dev:/), previous_secret: expect.stringMatching(/^v2:dev:/) });
      for (const secret of [old, rotated.secret]) {
        expect(stored).not.toContain(secret);
        expect(stored).not.toContain(secret.slice('whsec_'.length));
      }
    } finally {
      await db.end();
    }
  });

  it('keeps no secret in the clear in the database, its dump included, and answers a retry of create or rotate the same secret', async () => {
    const r = await receiver();
    const request = { org_id: '1', userid: 'u1', url: r.url, events: ['partners.partner.created'] };
    const made = await hooks().endpoint.create(request, { idempotencyKey: 'hooks-create-once' });
    const rotate = { org_id: '1', userid: 'u1', endpoint_id: made.endpoint.id };
    const rotated = await hooks().endpoint.rotateSecret(rotate, { idempotencyKey: 'hooks-rotate-once' });
    // A retry whose answer was lost gets the same answer, secret included, from the record under its key.
    expect(await hooks().endpoint.create(request, { idempotencyKey: 'hooks-create-once' })).toEqual(made);
    expect(await hooks().endpoint.rotateSecret(rotate, { idempotencyKey: 'hooks-rotate-once' })).toEqual(rotated);
    // The whole database as pg_dump writes it: the endpoint and the two recorded answers hold each secret sealed.
    const dump = spawnSync('pg_dump', ['--no-owner', sys.databaseUrl], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
    expect(dump.status).toBe(0);
    expect(dump.stdout).toContain('hooks-rotate-once');
    for (const secret of [made.secret, rotated.secret]) {
      expect(dump.stdout).not.toContain(secret);
      expect(dump.stdout).not.toContain(secret.slice('whsec_'.length));
    }
  });

  it('gets every event to a receiver that was down, each under one webhook-id, the same on every attempt', async () => {
    const r = await receiver();
    const { endpoint: e } = await endpoint(r.url, ['partners.partner.created']);
    await r.stop();
    const made = await Promise.all(['Down One', 'Down Two', 'Down Three'].map((n) => partner(n)));
    // Down through several attempts of each (the shortened schedule stands in for minutes).
    await eventually(
      async () => {
        const log = await deliveries(e.id);
        if (log.length !== 3 || log.some((d) => d.attempts < 3 || d.status !== 'pending')) throw new Error('not failed enough yet');
        expect(log.every((d) => d.last_error !== null && d.last_http_status === null)).toBe(true);
      },
      { timeoutMs: 15_000 },
    );
    await r.start();
    await eventually(async () => expect((await deliveries(e.id)).map((d) => d.status)).toEqual(['delivered', 'delivered', 'delivered']), {
      timeoutMs: 15_000,
    });
    const ids = new Map<string, Set<string>>();
    for (const h of r.hooks) ids.set(h.payload.id, (ids.get(h.payload.id) ?? new Set()).add(String(h.headers['webhook-id'])));
    expect(new Set(r.hooks.map((h) => h.payload.data['id']))).toEqual(new Set(made.map((p) => p.id)));
    for (const [id, seen] of ids) expect([...seen]).toEqual([id]);
  });

  it('retries a 500 until the receiver answers 200', async () => {
    const r = await receiver();
    const answered = new Set<string>();
    r.answer = (h) => (answered.has(h.payload.id) ? 200 : (answered.add(h.payload.id), 500));
    const { endpoint: e } = await endpoint(r.url, ['partners.partner.created']);
    const { delivery } = await hooks().endpoint.test({ org_id: '1', userid: 'u1', endpoint_id: e.id });
    await eventually(async () =>
      expect((await deliveries(e.id)).find((d) => d.id === delivery.id)).toMatchObject({
        status: 'delivered',
        attempts: 2,
        last_http_status: 200,
      }),
    );
    expect(r.hooks.map((h) => h.headers['webhook-id'])).toEqual([delivery.event_id, delivery.event_id]);
    // Each attempt of it, newest first, with what the receiver answered.
    const history = await hooks().delivery.attempts({ org_id: '1', endpoint_id: e.id, delivery_id: delivery.id });
    expect(history.delivery).toMatchObject({ id: delivery.id, status: 'delivered', attempts: 2 });
    expect(history.attempts.map((a) => [a.attempt, a.http_status, a.response_excerpt, a.error])).toEqual([
      [2, 200, 'ok', null],
      [1, 500, 'ok', null],
    ]);
    expect(history.attempts.every((a) => a.duration_ms >= 0 && /^\d{4}-\d{2}-\d{2}T/.test(a.at))).toBe(true);
    expect(history.pagination).toMatchObject({ total_items: 2 });
    // Only through its own endpoint, and only in its organization.
    const other = (await endpoint(r.url, ['partners.partner.created'])).endpoint;
    expect(await refusal(hooks().delivery.attempts({ org_id: '1', endpoint_id: other.id, delivery_id: delivery.id }))).toMatchObject({
      code: 'not_found',
    });
    expect(
      await refusal(sys.clientOf(2).webhooks.delivery.attempts({ org_id: '2', endpoint_id: e.id, delivery_id: delivery.id })),
    ).toMatchObject({ code: 'not_found' });
  });

  it('does not let a receiver that hangs delay another endpoint', async () => {
    const stuck = await receiver();
    stuck.answer = () => 'hang';
    const quick = await receiver();
    const { endpoint: stuckEndpoint } = await endpoint(stuck.url, ['partners.partner.updated']);
    await endpoint(quick.url, ['partners.partner.updated']);
    const p = await partner('Hang Around');
    for (let i = 0; i < 8; i++) await sys.client.partners.partner.edit({ org_id: '1', userid: 'u1', partner_id: p.id, notes: `edit ${i}` });
    // All eight reach the quick receiver while the stuck one still holds its first attempts open
    // (none of them has ended, not even by the 4 s timeout).
    await eventually(() => expect(quick.ofType('partners.partner.updated')).toHaveLength(8));
    expect(stuck.hanging.length).toBeGreaterThan(0);
    expect((await deliveries(stuckEndpoint.id)).map((d) => d.attempts)).toEqual(Array(8).fill(0));
  });

  it('sends a delivery again on redeliver, under the same webhook-id', async () => {
    const r = await receiver();
    const { endpoint: e } = await endpoint(r.url, ['partners.partner.created']);
    const { delivery } = await hooks().endpoint.test({ org_id: '1', userid: 'u1', endpoint_id: e.id });
    await eventually(() => expect(r.hooks).toHaveLength(1));
    await eventually(async () => expect((await deliveries(e.id))[0]).toMatchObject({ status: 'delivered' }));
    expect(await hooks().delivery.redeliver({ org_id: '1', userid: 'u1', endpoint_id: e.id, delivery_id: delivery.id })).toMatchObject({
      redelivered: 1,
    });
    await eventually(() => expect(r.hooks.map((h) => h.headers['webhook-id'])).toEqual([delivery.event_id, delivery.event_id]));
  });

  it('logs each failing attempt, paginated, and on redeliver since a time sends again every delivery that failed since then, and no other', async () => {
    const r = await receiver();
    let up = false;
    const answeredOk: string[] = [];
    r.answer = (h) => (up ? (answeredOk.push(String(h.headers['webhook-id'])), 200) : 503);
    const { endpoint: e } = await endpoint(r.url, ['partners.partner.created']);
    const ping = async () => (await hooks().endpoint.test({ org_id: '1', userid: 'u1', endpoint_id: e.id })).delivery;
    const before = await ping();
    // The log while it retries: the event, the attempts, the last one's time, status and duration, the next one.
    const retrying = await eventually(async () => {
      const [d] = await deliveries(e.id);
      expect(d).toMatchObject({
        id: before.id,
        event_id: before.event_id,
        event_type: 'webhook.ping',
        status: 'pending',
        last_http_status: 503,
      });
      expect(d!.attempts).toBeGreaterThanOrEqual(1);
      // Between two attempts (while one runs, the next is not known yet).
      expect(d!.next_attempt_at).not.toBeNull();
      return d!;
    });
    expect(retrying.last_attempt_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
    expect(retrying.next_attempt_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
    expect(retrying.last_duration_ms).toEqual(expect.any(Number));
    expect(retrying.last_error).toBeNull();
    // `since` is to the second: the deliveries after it are made once that second has begun.
    const sinceMs = Date.parse(`${before.created_at}Z`) + 1000;
    const since = new Date(sinceMs).toISOString().slice(0, 19);
    await eventually(() => expect(Date.now()).toBeGreaterThanOrEqual(sinceMs + 50), { timeoutMs: 5000 });
    const after = [await ping(), await ping()];
    // Every retry of the shortened schedule fails: all three give up.
    await eventually(async () => expect((await deliveries(e.id)).map((d) => d.status)).toEqual(['failed', 'failed', 'failed']), {
      timeoutMs: 30_000,
      intervalMs: 250,
    });
    const gaveUp = await deliveries(e.id);
    expect(gaveUp.every((d) => d.next_attempt_at === null && d.last_http_status === 503 && d.attempts === 11)).toBe(true);

    const page = await hooks().delivery.list({ org_id: '1', endpoint_id: e.id, page_size: 1, page_number: 2 });
    expect(page.deliveries.map((d) => d.id)).toEqual([after[0]!.id]);
    expect(page.pagination).toMatchObject({
      page_number: 2,
      page_size: 1,
      total_items: 3,
      total_pages: 3,
      has_next: true,
      has_previous: true,
    });

    up = true;
    expect(await hooks().delivery.redeliver({ org_id: '1', userid: 'u1', endpoint_id: e.id, since })).toMatchObject({ redelivered: 2 });
    await eventually(async () =>
      expect((await deliveries(e.id)).map((d) => [d.id, d.status])).toEqual([
        [after[1]!.id, 'delivered'],
        [after[0]!.id, 'delivered'],
        [before.id, 'failed'],
      ]),
    );
    expect(answeredOk.sort()).toEqual(after.map((d) => d.event_id).sort());
  });

  it('counts attempts by outcome and their latency, and the backlog per endpoint, in /metrics', async () => {
    const stuck = await receiver();
    stuck.answer = () => 'hang';
    const { endpoint: e } = await endpoint(stuck.url, ['partners.partner.created']);
    await hooks().endpoint.test({ org_id: '1', userid: 'u1', endpoint_id: e.id });
    await eventually(() => expect(stuck.hanging).toHaveLength(1));
    const text = await (await fetch(`${sys.url}/metrics`)).text();
    const value = (series: string) => {
      const line = text.split('\n').find((l) => l.startsWith(`${series} `));
      if (!line) throw new Error(`no ${series} in /metrics`);
      return Number(line.slice(series.length + 1));
    };
    // The earlier tests delivered, failed (500) and were gone (410).
    expect(value('bo_webhook_attempts_total{service="webhooks",outcome="delivered"}')).toBeGreaterThan(0);
    expect(value('bo_webhook_attempts_total{service="webhooks",outcome="failed"}')).toBeGreaterThan(0);
    expect(value('bo_webhook_attempt_duration_seconds_count{service="webhooks",outcome="delivered"}')).toBeGreaterThan(0);
    expect(value(`bo_webhook_backlog{service="webhooks",endpoint="${e.id}"}`)).toBe(1);
    expect(value('bo_webhook_oldest_pending_seconds{service="webhooks"}')).toBeGreaterThan(0);
  });

  it('deletes an endpoint with its log: no longer listed, its deliveries not found', async () => {
    const r = await receiver();
    const { endpoint: e } = await endpoint(r.url, ['partners.partner.created']);
    await hooks().endpoint.test({ org_id: '1', userid: 'u1', endpoint_id: e.id });
    await eventually(async () => expect((await deliveries(e.id)).map((d) => d.status)).toEqual(['delivered']));
    await hooks().endpoint.delete({ org_id: '1', userid: 'u1', endpoint_id: e.id });
    expect((await hooks().endpoint.list({ org_id: '1', page_size: 100 })).endpoints.map((x) => x.id)).not.toContain(e.id);
    expect(await refusal(hooks().delivery.list({ org_id: '1', endpoint_id: e.id }))).toMatchObject({ code: 'not_found' });
    expect(await refusal(hooks().endpoint.test({ org_id: '1', userid: 'u1', endpoint_id: e.id }))).toMatchObject({ code: 'not_found' });
  });

  it("records an attempt only once it holds the delivery's endpoint, the order every endpoint write locks in (so none deadlocks with it)", async () => {
    const r = await receiver();
    r.answer = () => 'hang';
    const { endpoint: e } = await endpoint(r.url, ['partners.partner.created']);
    const { delivery } = await hooks().endpoint.test({ org_id: '1', userid: 'u1', endpoint_id: e.id });
    await eventually(() => expect(r.hanging).toHaveLength(1));
    const writer = new pg.Client({ connectionString: sys.databaseUrl });
    const other = new pg.Client({ connectionString: sys.databaseUrl });
    await writer.connect();
    await other.connect();
    try {
      // What a delete, an update or a redeliver takes first.
      await writer.query('begin');
      await writer.query('select 1 from webhooks.endpoints where id = $1 for update', [e.id]);
      r.hanging[0]!.writeHead(500).end('no');
      await eventually(async () => {
        const { rows } = await other.query(
          `select query from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'
             and query ilike '%endpoints%' and query not ilike 'insert%'`,
        );
        expect(rows).toHaveLength(1);
      });
      // The attempt waits holding nothing of its delivery: a delete's cascade takes it at once.
      await other.query('begin');
      await expect(other.query('select 1 from webhooks.deliveries where id = $1 for update nowait', [delivery.id])).resolves.toMatchObject({
        rowCount: 1,
      });
      await other.query('rollback');
    } finally {
      await writer.query('rollback');
      await writer.end();
      await other.end();
    }
    await eventually(async () => expect((await deliveries(e.id))[0]).toMatchObject({ attempts: 1, last_http_status: 500 }));
  });

  it('disables an endpoint that answers 410 Gone, and says so with an event', async () => {
    const watcher = await receiver();
    const gone = await receiver();
    gone.answer = () => 410;
    await endpoint(watcher.url, ['webhooks.*']);
    const { endpoint: e } = await endpoint(gone.url, ['*']);
    await hooks().endpoint.test({ org_id: '1', userid: 'u1', endpoint_id: e.id });
    const [disabled] = await eventually(() => {
      const got = watcher.ofType('webhooks.endpoint.disabled');
      if (!got.length) throw new Error('no event yet');
      return got;
    });
    expect(disabled!.payload.data).toMatchObject({ endpoint_id: e.id, reason: 'gone' });
    const listed = (await hooks().endpoint.list({ org_id: '1', page_size: 100 })).endpoints.find((x) => x.id === e.id);
    expect(listed).toMatchObject({ status: 'disabled', disabled_reason: 'gone' });
  });

  it("keeps another organization's endpoints and deliveries invisible, and its events away", async () => {
    const mine = await receiver();
    const { endpoint: e } = await endpoint(mine.url, ['partners.partner.created']);
    const theirs = await receiver();
    await endpoint(theirs.url, ['partners.partner.created'], 2);
    const org2 = sys.clientOf(2).webhooks;
    expect((await org2.endpoint.list({ org_id: '2', page_size: 100 })).endpoints.map((x) => x.url)).toEqual([theirs.url]);
    expect(await refusal(org2.delivery.list({ org_id: '2', endpoint_id: e.id }))).toMatchObject({ status: 400, code: 'not_found' });
    expect(await refusal(org2.endpoint.rotateSecret({ org_id: '2', userid: 'u2', endpoint_id: e.id }))).toMatchObject({
      code: 'not_found',
    });
    const theirPartner = await partner('Theirs', 2);
    const myPartner = await partner('Mine');
    await eventually(() => expect(theirs.hooks.map((h) => h.payload.data['id'])).toEqual([theirPartner.id]));
    await eventually(() => expect(mine.hooks.map((h) => h.payload.data['id'])).toEqual([myPartner.id]));
    expect(theirs.hooks.every((h) => h.payload.org_id === 2)).toBe(true);
  });
});

/**
 * An endpoint failing for WEBHOOKS_DISABLE_AFTER_MS (3 days by default; one second here, with a
 * retry schedule that outlasts it) is disabled at its next failure, with an event.
 */
describe('an endpoint failing for too long', () => {
  let sys: TestSystem;
  const receivers: WebhookReceiver[] = [];
  beforeAll(async () => {
    sys = await startTestSystem({
      services: ['webhooks'],
      env: {
        WEBHOOKS_ALLOW_HTTP: '1',
        WEBHOOKS_ALLOW_PRIVATE: '1',
        WEBHOOKS_POLL_MS: '100',
        WEBHOOKS_DISABLE_AFTER_MS: '1000',
        WEBHOOKS_RETRY_SCHEDULE_MS: '300,300,300,300,300,300,300,300,300,300',
      },
    });
  }, 60_000);
  afterAll(async () => {
    for (const r of receivers) await r.stop();
    await sys?.stop();
  });

  it('is disabled with an event, and delivers what was pending once enabled again', async () => {
    const [watcher, failing] = [await new WebhookReceiver().start(), await new WebhookReceiver().start()];
    receivers.push(watcher, failing);
    let up = false;
    failing.answer = () => (up ? 200 : 500);
    const hooks = sys.client.webhooks;
    await hooks.endpoint.create({ org_id: '1', userid: 'u1', url: watcher.url, events: ['webhooks.*'] });
    const { endpoint: e } = await hooks.endpoint.create({ org_id: '1', userid: 'u1', url: failing.url, events: ['*'] });
    const { delivery } = await hooks.endpoint.test({ org_id: '1', userid: 'u1', endpoint_id: e.id });

    const [disabled] = await eventually(() => {
      const got = watcher.ofType('webhooks.endpoint.disabled');
      if (!got.length) throw new Error('no event yet');
      return got;
    });
    expect(disabled!.payload.data).toMatchObject({ endpoint_id: e.id, reason: 'failing', failing_since: expect.any(String) });
    const listed = (await hooks.endpoint.list({ org_id: '1' })).endpoints.find((x) => x.id === e.id);
    expect(listed).toMatchObject({ status: 'disabled', disabled_reason: 'failing' });
    // Disabled before its retries ran out: the ping waits, pending.
    const [waiting] = (await hooks.delivery.list({ org_id: '1', endpoint_id: e.id })).deliveries;
    expect(waiting).toMatchObject({ id: delivery.id, status: 'pending' });

    up = true;
    await hooks.endpoint.update({ org_id: '1', userid: 'u1', endpoint_id: e.id, status: 'enabled' });
    await eventually(async () =>
      expect((await hooks.delivery.list({ org_id: '1', endpoint_id: e.id })).deliveries[0]).toMatchObject({
        id: delivery.id,
        status: 'delivered',
        last_http_status: 200,
      }),
    );
  });
});

describe('webhook targets without the development flags', () => {
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startTestSystem({ services: ['webhooks'] });
  }, 60_000);
  afterAll(async () => {
    await sys?.stop();
  });

  it('refuses a private address again at delivery, before connecting, without naming it (a name that resolves elsewhere now)', async () => {
    // A public address is taken at create; the address is checked at every attempt. The stored URL
    // is then changed to a loopback address, as a name resolving there later would.
    const { endpoint: e } = await sys.client.webhooks.endpoint.create({
      org_id: '1',
      userid: 'u1',
      url: 'https://93.184.215.14/x',
      events: ['webhooks.*'],
    });
    const db = new pg.Client({ connectionString: sys.databaseUrl });
    await db.connect();
    try {
      await db.query(`update webhooks.endpoints set url = 'https://127.0.0.1:9/x' where id = $1`, [e.id]);
    } finally {
      await db.end();
    }
    const { delivery } = await sys.client.webhooks.endpoint.test({ org_id: '1', userid: 'u1', endpoint_id: e.id });
    const [tried] = await eventually(async () => {
      const log = (await sys.client.webhooks.delivery.list({ org_id: '1', endpoint_id: e.id })).deliveries;
      if (!log[0]?.attempts) throw new Error('not tried yet');
      return log;
    });
    expect(tried).toMatchObject({ id: delivery.id, status: 'pending', last_http_status: null, last_duration_ms: 0 });
    expect(tried!.last_error).toBe('refused: is a loopback, private, link-local or reserved address');
  });

  it.each([
    ['http://hooks.example.com/x', 'must be an https URL'],
    ['https://127.0.0.1/hooks', 'loopback, private'],
    ['https://[::1]:8443/hooks', 'loopback, private'],
    ['https://169.254.169.254/latest/meta-data', 'loopback, private'],
    ['https://localhost/hooks', 'loopback, private'],
    ['https://[::808:808]/hooks', 'loopback, private'],
    ['https://[64:ff9b:1::a00:1]/hooks', 'loopback, private'],
  ])('refuses %s', async (url, message) => {
    const refused = await refusal(sys.client.webhooks.endpoint.create({ org_id: '1', userid: 'u1', url, events: ['*'] }));
    expect(refused).toMatchObject({ status: 400, code: 'validation_failed' });
    expect(refused.errors).toEqual([{ field: 'url', message: expect.stringContaining(message) }]);
  });
});
