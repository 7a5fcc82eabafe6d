import { NotAsDecided, storeAlone } from '@bo/runtime';
import { startTestService, type TestService } from '@bo/testkit';
import { webhooksService } from '../src';
import { decideRotation } from '../src/endpoint/decide-rotation';
import { endpointRecord, type EndpointRow } from '../src/endpoint/endpoint.record';
import { endpointChangeAlone, readEndpoint } from '../src/endpoint/endpoint.repository';

/** Rotating a secret and deleting an endpoint: one statement as a rule, the locked way when that cannot stand. */
describe('webhook endpoints written as one statement', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService(webhooksService, {
      WEBHOOKS_SECRET_KEYS: 'k1:the first key of thirty-two characters or more',
      WEBHOOKS_ALLOW_PRIVATE: '1',
    });
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
  });

  type Reply = { ok: boolean; status: number; code?: string; body: Record<string, unknown> };
  const write = async (action: string, payload: Record<string, unknown>, org = 1) =>
    (await svc.call(`webhooks.endpoint.${action}`, { userid: 'u1', action, ...payload }, org)) as unknown as Reply;
  const stored = async (id: number) => (await svc.db('endpoints').where({ id }).first()) as EndpointRow | undefined;
  const create = async () =>
    (await write('create', { url: 'https://127.0.0.1/in', events: ['partners.*'] })).body.endpoint as { id: number };

  it('rotates on an unlocked read, answering the endpoint as stored; one changed since the read writes nothing', async () => {
    const { id } = await create();
    const read = await readEndpoint(svc.db, 1, id);
    await svc.db('endpoints').where({ id }).update({ description: 'changed meanwhile' });
    const rotation = decideRotation(read.row, 'sealed-elsewhere', new Date(), 60_000);
    const alone = { ...endpointChangeAlone(read.row, rotation, read.read), events: [], reply: {} };
    await expect(storeAlone(svc.db, alone, undefined, { ok: true, status: 200, body: {} })).rejects.toBeInstanceOf(NotAsDecided);
    expect((await stored(id))?.secret).toBe(read.row.secret);

    const before = (await stored(id))!;
    const rotated = await write('rotate_secret', { endpoint_id: id });
    const after = (await stored(id))!;
    expect(rotated.body.endpoint).toEqual(endpointRecord(after));
    expect(after).toMatchObject({ version: before.version + 1, previous_secret: before.secret });
    expect(after.secret).not.toBe(before.secret);
    expect(rotated.body.secret).toMatch(/^whsec_/);
  });

  it('deletes as one statement; another organization, or an endpoint already gone, is not found and nothing changes', async () => {
    const { id } = await create();
    expect(await write('delete', { endpoint_id: id }, 2)).toMatchObject({ ok: false, code: 'not_found' });
    expect(await stored(id)).toBeDefined();
    expect(await write('delete', { endpoint_id: id })).toMatchObject({
      ok: true,
      body: { message: 'Webhook endpoint deleted successfully' },
    });
    expect(await stored(id)).toBeUndefined();
    expect(await write('delete', { endpoint_id: id })).toMatchObject({ ok: false, code: 'not_found' });
    expect(await write('rotate_secret', { endpoint_id: id })).toMatchObject({ ok: false, code: 'not_found' });
  });
});
