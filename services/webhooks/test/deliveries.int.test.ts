import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventually, startTestService, type TestService } from '@bo/testkit';
import { webhooksService } from '../src';

/**
 * A ping and a redeliver are stored as one statement, with no transaction whose commit would wake
 * the dispatcher: the statement's answer does (delivery/wake.ts). The dispatcher here polls once a
 * minute, so what reaches the receiver within seconds was sent because the write woke it.
 */
describe('deliveries queued as one statement', () => {
  let svc: TestService;
  let server: Server;
  const received: string[] = [];
  let url = '';
  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        received.push(String(req.headers['webhook-id']));
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/in`;
    svc = await startTestService(webhooksService, {
      WEBHOOKS_SECRET_KEYS: 'k1:the first key of thirty-two characters or more',
      WEBHOOKS_ALLOW_HTTP: '1',
      WEBHOOKS_ALLOW_PRIVATE: '1',
      WEBHOOKS_POLL_MS: '60000',
    });
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  type Reply = { ok: boolean; body: Record<string, any> };
  const write = async (op: string, payload: Record<string, unknown>) =>
    (await svc.call(`webhooks.${op}`, { userid: 'u1', action: op.split('.')[1], ...payload }, 1)) as unknown as Reply;
  const soon = { timeoutMs: 5_000 };

  it('sends a ping at once, and a delivery queued again at once, each woken by its statement', async () => {
    const { endpoint } = (await write('endpoint.create', { url, events: ['partners.*'] })).body;
    const { delivery } = (await write('endpoint.test', { endpoint_id: endpoint.id })).body;
    await eventually(() => expect(received).toEqual([delivery.event_id]), soon);
    await eventually(async () =>
      expect(await svc.db('deliveries').where({ id: delivery.id }).first('status')).toEqual({ status: 'delivered' }),
    );

    expect(await write('delivery.redeliver', { endpoint_id: endpoint.id, delivery_id: delivery.id })).toMatchObject({
      ok: true,
      body: { redelivered: 1 },
    });
    await eventually(() => expect(received).toEqual([delivery.event_id, delivery.event_id]), soon);
  });
});
