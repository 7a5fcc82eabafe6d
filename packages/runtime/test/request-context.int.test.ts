import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { defineOperation, type ServiceName } from '@bo/contracts';
import { createTestDatabase, type TestDatabase } from '@bo/testkit';
import { MemoryBus } from '../src/bus/memory';
import { baseConfigSchema } from '../src/config';
import { createDb, type Knex } from '../src/db';
import { createLogger } from '../src/logger';
import { handler, startService, type RunningService } from '../src/service';

/**
 * A handler's context makes its request's logger (a pino child naming the request) only when the
 * handler logs, and a write's transaction still sees the request's fields and no calls.
 */
const request = z.object({ org_id: z.unknown(), logs: z.number().int() });
const reply = z.object({ seen: z.array(z.string()) });
const op = <W extends boolean>(name: string, write: W) =>
  defineOperation({ name, service: 'svc' as ServiceName, summary: 'test', paths: [], select: { default: true }, write, request, reply });
const read = op('svc.ctx.read', false);
const write = op('svc.ctx.write', true);
const gathered = op('svc.ctx.gathered', true);

/** What each run saw of its context: its fields' names, and whether it could call other services. */
const seen: Array<{ keys: string[]; calls: boolean; orgId: number; requestId: string }> = [];

const log = createLogger('test', process.env.TEST_LOG_LEVEL ?? 'silent');

describe('a request context: its logger made on first use', () => {
  let database: TestDatabase;
  let db: Knex;
  let bus: MemoryBus;
  let service: RunningService;
  let child: jest.SpyInstance;

  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDb(database.url, 'svc', 2);
    bus = new MemoryBus({ log });
    const config = baseConfigSchema.parse({ DATABASE_URL: database.url, OUTBOX_POLL_MS: '60000' });
    const note = (ctx: { orgId: number; requestId: string; log: { info(msg: string): void } } & object, logs: number) => {
      seen.push({ keys: Object.keys(ctx).sort(), calls: 'call' in ctx, orgId: ctx.orgId, requestId: ctx.requestId });
      for (let i = 0; i < logs; i++) ctx.log.info('handled');
      return { seen: Object.keys(ctx).sort() };
    };
    service = await startService(
      {
        name: 'svc' as ServiceName,
        migrations: [],
        handlers: [
          handler(read, async (req, ctx) => note(ctx, req.logs)),
          handler(write, async (req, ctx) => note(ctx, req.logs)),
          handler(gathered, {
            gather: async (req, ctx) => (note(ctx, 0), req.logs),
            apply: async (_req, ctx, logs) => note(ctx, logs),
          }),
        ],
      },
      { db, bus, log, config },
    );
    child = jest.spyOn(log, 'child');
  });
  afterAll(async () => {
    await service?.stop();
    await bus?.close();
    await db?.destroy();
    await database?.drop();
  });
  beforeEach(() => {
    seen.length = 0;
    child.mockClear();
  });

  const send = (operation: string, logs: number, operationKey?: string) =>
    bus.request(operation, { org_id: '7', logs }, { orgId: 7, requestId: 'req-1', operationKey }, 5000);

  it('makes no child logger for a request whose handler logs nothing', async () => {
    expect(await send('svc.ctx.read', 0)).toMatchObject({ ok: true });
    expect(await send('svc.ctx.write', 0, randomUUID())).toMatchObject({ ok: true });
    expect(await send('svc.ctx.gathered', 0, randomUUID())).toMatchObject({ ok: true });
    expect(child).not.toHaveBeenCalled();
  });

  it('makes one, naming the request, however often the handler logs', async () => {
    expect(await send('svc.ctx.write', 3, randomUUID())).toMatchObject({ ok: true });
    expect(child).toHaveBeenCalledTimes(1);
    expect(child).toHaveBeenCalledWith({ request_id: 'req-1', operation: 'svc.ctx.write' });
    child.mockClear();
    expect(await send('svc.ctx.gathered', 2, randomUUID())).toMatchObject({ ok: true });
    expect(child).toHaveBeenCalledTimes(1);
    expect(child).toHaveBeenCalledWith({ request_id: 'req-1', operation: 'svc.ctx.gathered' });
  });

  it("gives a read and a gather step calls, and a write's transaction the same fields without them", async () => {
    await send('svc.ctx.read', 0);
    await send('svc.ctx.write', 0, randomUUID());
    await send('svc.ctx.gathered', 0, randomUUID());
    const [readCtx, writeCtx, gatherCtx, applyCtx] = seen;
    expect(readCtx).toMatchObject({ calls: true, orgId: 7, requestId: 'req-1' });
    expect(readCtx!.keys).toEqual(expect.arrayContaining(['call', 'config', 'db', 'log', 'orgId', 'requestId']));
    expect(gatherCtx).toMatchObject({ calls: true });
    for (const applied of [writeCtx, applyCtx]) {
      expect(applied).toMatchObject({ calls: false, orgId: 7, requestId: 'req-1' });
      expect(applied!.keys).toEqual(readCtx!.keys.filter((k) => k !== 'call'));
    }
  });
});
