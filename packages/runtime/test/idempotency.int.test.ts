import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { defineOperation, type RpcReply } from '@bo/contracts';
import type { Knex } from '../src/db';
import { AppError } from '../src/errors';
import { KEY_IN_USE_REPLY, KEY_REUSED_REPLY, keyLockOf, OPERATION_KEYS } from '../src/idempotency';
import { eventually, startTestService, type TestService } from '@bo/testkit';
import { handler, type ApplyContext, type HandlerContext, type ServiceDefinition } from '../src/service';

/**
 * The recording rules of the service host, on a stand-in service whose one table counts effects:
 * a reply is recorded with its effect, a refusal is recorded, a transient refusal and a failure
 * are not, and a failed transaction leaves no record and no effect.
 */
const bump = defineOperation({
  name: 'partners.test.bump',
  service: 'partners',
  summary: 'test',
  paths: [],
  select: { default: true },
  write: true,
  request: z.object({ org_id: z.unknown(), outcome: z.enum(['ok', 'refuse', 'busy', 'crash']) }),
  reply: z.object({ message: z.string(), count: z.number() }),
});

/** The same count, by a handler in two steps: gather (before the transaction), then apply (in it). */
const bumpGathered = defineOperation({
  name: 'partners.test.bumpGathered',
  service: 'partners',
  summary: 'test',
  paths: [],
  select: { default: true },
  write: true,
  request: z.object({ org_id: z.unknown(), outcome: z.enum(['ok', 'refuse', 'hold', 'outage', 'stale']) }),
  reply: z.object({ message: z.string(), count: z.number() }),
});

/** The same count, by a handler whose gather only reads (readOnlyGather): its key is held by its transaction. */
const bumpRead = defineOperation({
  name: 'partners.test.bumpRead',
  service: 'partners',
  summary: 'test',
  paths: [],
  select: { default: true },
  write: true,
  request: z.object({ org_id: z.unknown(), outcome: z.enum(['ok', 'hold']) }),
  reply: z.object({ message: z.string(), count: z.number() }),
});

/**
 * The same count, by a handler whose gather only reads and whose write is one statement (`alone`)
 * that inserts only while the count is the one it was told (`moved`: one more than gathered, so it
 * finds the count moved and `apply` runs it).
 */
const bumpAlone = defineOperation({
  name: 'partners.test.bumpAlone',
  service: 'partners',
  summary: 'test',
  paths: [],
  select: { default: true },
  write: true,
  request: z.object({ org_id: z.unknown(), outcome: z.enum(['ok', 'moved']) }),
  reply: z.object({ message: z.string(), count: z.number() }),
});

/** bumpAlone with a gather that may act elsewhere: its key is claimed before gather, and its one statement records over the claim. */
const bumpAloneClaimed = defineOperation({
  name: 'partners.test.bumpAloneClaimed',
  service: 'partners',
  summary: 'test',
  paths: [],
  select: { default: true },
  write: true,
  request: z.object({ org_id: z.unknown(), outcome: z.enum(['ok', 'moved']) }),
  reply: z.object({ message: z.string(), count: z.number() }),
});

/**
 * The same count, by a handler whose key's claim reads the count for its gather (readWithClaim):
 * `stale` finds its facts out of date once, `none` reads no row.
 */
const bumpClaimRead = defineOperation({
  name: 'partners.test.bumpClaimRead',
  service: 'partners',
  summary: 'test',
  paths: [],
  select: { default: true },
  write: true,
  request: z.object({ org_id: z.unknown(), outcome: z.enum(['ok', 'stale', 'none']) }),
  reply: z.object({ message: z.string(), count: z.number() }),
});

/** What each gather of bumpClaimRead was given by its key's claim (undefined: nothing, so it read for itself). */
const claimedSeen: unknown[] = [];

/** A gather step with `outcome: 'hold'` waits for this (a slow call to another service), so a test can send twins meanwhile. */
let held: { reached: () => void; release: Promise<void> } | undefined;

/** How often the gather step ran: it stands for a call to another service, which a replay must not make again. */
let gathered = 0;

/** How many more times the apply step of `outcome: 'stale'` finds its gathered facts out of date. */
let staleLeft = 0;

/**
 * The steps of bumpAlone and bumpAloneClaimed: gather counts, the one statement inserts only while the
 * count is the one it was told, apply inserts under the transaction.
 */
const aloneSteps = {
  gather: async (_req: unknown, ctx: HandlerContext) => {
    gathered += 1;
    return { before: Number((await ctx.db('bumps').count({ n: '*' }))[0]!.n) };
  },
  alone: (req: { outcome: 'ok' | 'moved' }, _ctx: HandlerContext, { before }: { before: number }) => ({
    parts: [
      {
        sql: 'insert into bumps select from (select count(*) as n from bumps) c where c.n = ? returning id',
        bindings: [req.outcome === 'moved' ? before + 1 : before],
      },
    ],
    expects: '(select count(*) from store1) = 1',
    events: [],
    reply: { message: `bumped alone from ${before}`, count: before + 1 },
  }),
  apply: async (_req: unknown, ctx: ApplyContext, { before }: { before: number }) => {
    await ctx.db('bumps').insert({});
    const count = Number((await ctx.db('bumps').count({ n: '*' }))[0]!.n);
    return { message: `bumped from ${before}`, count };
  },
};

const testService: ServiceDefinition = {
  name: 'partners',
  migrations: [
    {
      name: '001_counter',
      up: async (trx, schema) => void (await trx.schema.withSchema(schema).createTable('bumps', (t) => t.increments('id'))),
    },
  ],
  handlers: [
    handler(bump, async (req, ctx) => {
      await ctx.db('bumps').insert({});
      const count = Number((await ctx.db('bumps').count({ n: '*' }))[0]!.n);
      if (req.outcome === 'refuse') throw new AppError(400, 'invalid_state', `refused at ${count}`);
      if (req.outcome === 'busy') throw new AppError(400, 'invalid_state', `busy at ${count}`).asTransient();
      if (req.outcome === 'crash') throw new Error('bug');
      return { message: 'bumped', count };
    }),
    handler(bumpGathered, {
      gather: async (req, ctx) => {
        gathered += 1;
        if (req.outcome === 'refuse') throw new AppError(400, 'invalid_state', 'refused before the transaction');
        if (req.outcome === 'outage') throw new AppError(503, 'service_unavailable', 'the other service is down');
        if (req.outcome === 'hold' && held) {
          held.reached();
          await held.release;
        }
        return { before: Number((await ctx.db('bumps').count({ n: '*' }))[0]!.n) };
      },
      apply: async (req, ctx, { before }) => {
        if (req.outcome === 'stale' && staleLeft-- > 0) throw new AppError(503, 'service_unavailable', 'changed meanwhile').asStale();
        await ctx.db('bumps').insert({});
        const count = Number((await ctx.db('bumps').count({ n: '*' }))[0]!.n);
        return { message: `bumped from ${before}`, count };
      },
    }),
    handler(bumpRead, {
      gather: async (req, ctx) => {
        gathered += 1;
        if (req.outcome === 'hold' && held) {
          held.reached();
          await held.release;
        }
        return { before: Number((await ctx.db('bumps').count({ n: '*' }))[0]!.n) };
      },
      apply: async (_req, ctx, { before }) => {
        await ctx.db('bumps').insert({});
        const count = Number((await ctx.db('bumps').count({ n: '*' }))[0]!.n);
        return { message: `bumped from ${before}`, count };
      },
      readOnlyGather: true,
    }),
    handler(bumpAlone, { ...aloneSteps, readOnlyGather: true }),
    handler(bumpClaimRead, {
      // A binding after the claim's own: the read's are placed after them in the one statement.
      readWithClaim: (req) => ({
        sql: req.outcome === 'none' ? 'select id from bumps where id < ?' : 'select count(*)::int as n from bumps where id > ?',
        bindings: [0],
      }),
      gather: async (_req, ctx, claimed) => {
        gathered += 1;
        claimedSeen.push(claimed);
        const before = claimed ? Number(claimed[0]?.['n'] ?? 0) : Number((await ctx.db('bumps').count({ n: '*' }))[0]!.n);
        return { before };
      },
      apply: async (req, ctx, { before }) => {
        if (req.outcome === 'stale' && staleLeft-- > 0) throw new AppError(503, 'service_unavailable', 'changed meanwhile').asStale();
        await ctx.db('bumps').insert({});
        return { message: `bumped from ${before}`, count: before + 1 };
      },
    }),
    handler(bumpAloneClaimed, aloneSteps),
  ],
};

describe('service host: replies recorded with their effect', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService(testService);
  });
  afterAll(async () => {
    await svc?.stop();
  });

  const send = (outcome: string, operationKey: string) => svc.call('partners.test.bump', { outcome }, 1, { operationKey });
  const bumps = async () => Number((await svc.db('bumps').count({ n: '*' }))[0]!.n);

  it('replays a success without running it again', async () => {
    const key = randomUUID();
    const first = await send('ok', key);
    expect(first).toMatchObject({ ok: true, body: { count: expect.any(Number) } });
    const before = await bumps();
    expect(await send('ok', key)).toEqual(first);
    expect(await bumps()).toBe(before);
  });

  it('rolls a refusal back and records it, so the key answers the same way', async () => {
    const key = randomUUID();
    const before = await bumps();
    const first = await send('refuse', key);
    expect(first).toMatchObject({ ok: false, status: 400, message: expect.stringContaining('refused') });
    expect(await send('refuse', key)).toEqual(first);
    expect(await bumps()).toBe(before);
  });

  it('does not record a transient refusal or a failure: the retry runs afresh', async () => {
    for (const outcome of ['busy', 'crash']) {
      const key = randomUUID();
      const before = await bumps();
      expect((await send(outcome, key)).ok).toBe(false);
      expect(await bumps()).toBe(before);
      expect(await svc.db(OPERATION_KEYS).where({ key })).toHaveLength(0);
    }
    // Nothing was recorded under the key, so the retry is decided afresh.
    const key = randomUUID();
    await send('busy', key);
    expect(await send('ok', key)).toMatchObject({ ok: true });
  });

  it('runs a command once however many twins race it', async () => {
    // A twin is answered 409 while the first holds the key, or the first's reply once it committed.
    for (let round = 0; round < 5; round++) {
      const key = randomUUID();
      const before = await bumps();
      const replies = await Promise.all(Array.from({ length: 6 }, () => send('ok', key)));
      const answered = new Set(replies.filter((r) => r.ok).map((r) => JSON.stringify(r)));
      expect(answered.size).toBe(1);
      for (const r of replies.filter((r) => !r.ok)) expect(r).toEqual(KEY_IN_USE_REPLY);
      expect(await bumps()).toBe(before + 1);
      expect(JSON.stringify(await send('ok', key))).toBe([...answered][0]);
    }
  });

  /** The advisory locks of this test's database (pg_locks shows the whole server's, and tests run side by side). */
  const ADVISORY = `from pg_locks where locktype = 'advisory' and database = (select oid from pg_database where datname = current_database())`;

  /**
   * Runs `body` while the first command under `key` holds it, waiting inside its transaction for a
   * table another transaction (`table`, which `body` commits) has locked; `before` is the bump count
   * before it started. The lock is released whatever `body` does.
   */
  const whileHeld = async (
    key: string,
    body: (held: { first: Promise<RpcReply>; table: Knex.Transaction; before: number }) => Promise<void>,
  ) => {
    const before = await bumps();
    const table = await svc.db.transaction();
    try {
      await table.raw('lock table bumps in exclusive mode');
      const first = send('ok', key);
      await eventually(async () => {
        const { rows } = await svc.db.raw<{ rows: Array<{ n: number }> }>(`select count(*)::int as n ${ADVISORY}`);
        expect(rows[0]!.n).toBe(1);
      });
      await body({ first, table, before });
    } finally {
      if (!table.isCompleted()) await table.rollback();
    }
  };

  it('answers a twin 409 at once while the first still runs, and its reply once it committed', async () => {
    const key = randomUUID();
    await whileHeld(key, async ({ first, table, before }) => {
      expect(await send('ok', key)).toEqual(KEY_IN_USE_REPLY);
      // Another key runs meanwhile (until the table it needs is free).
      const other = send('ok', randomUUID());
      await table.commit();
      expect(await other).toMatchObject({ ok: true });
      const reply = await first;
      expect(reply).toMatchObject({ ok: true });
      expect(await send('ok', key)).toEqual(reply);
      expect(await bumps()).toBe(before + 2);
    });
  });

  it("frees the key when the first's connection is killed mid-transaction: the retry runs it once", async () => {
    const key = randomUUID();
    await whileHeld(key, async ({ first, table, before }) => {
      // The backend holding the key (waiting for the table) dies, as with a crash or a cut connection.
      await svc.db.raw(`select pg_terminate_backend(pid) ${ADVISORY}`);
      expect(await first).toMatchObject({ ok: false });
      await table.commit();
      const retried = await send('ok', key);
      expect(retried).toMatchObject({ ok: true });
      expect(await send('ok', key)).toEqual(retried);
      expect(await bumps()).toBe(before + 1);
    });
  });

  /** The record another service (catalog) made of a request with `key`. */
  const otherRecord = (key: string) => ({
    org_id: 1,
    key,
    operation: 'catalog.product.create',
    request_hash: 'h',
    status: 200,
    reply: JSON.stringify({ ok: true, status: 200, body: { message: 'Product created' } }),
  });

  it('refuses a key used for another body or another operation, here or in another service, and changes nothing', async () => {
    const own = (operationKey: string) => svc.call('partners.test.bumpGathered', { outcome: 'ok' }, 1, { operationKey });
    const key = randomUUID();
    const first = await send('ok', key);
    const before = await bumps();
    expect(await send('refuse', key)).toEqual(KEY_REUSED_REPLY);
    expect(await own(key)).toEqual(KEY_REUSED_REPLY);
    expect(await send('ok', key)).toEqual(first);

    // A key another service recorded (its request took effect there): nothing runs here.
    const elsewhere = randomUUID();
    await svc.db(OPERATION_KEYS).insert(otherRecord(elsewhere));
    expect(await send('ok', elsewhere)).toEqual(KEY_REUSED_REPLY);
    expect(await own(elsewhere)).toEqual(KEY_REUSED_REPLY);
    expect(await bumps()).toBe(before);
    expect(await svc.db(OPERATION_KEYS).where({ key: elsewhere }).select('org_id', 'operation')).toEqual([
      { org_id: 1, operation: 'catalog.product.create' },
    ]);
    // The same key of another organization is another key.
    expect(await svc.call('partners.test.bump', { outcome: 'ok' }, 2, { operationKey: elsewhere })).toMatchObject({ ok: true });
    expect(await bumps()).toBe(before + 1);
  });

  /**
   * Sends with `sender` a key another request records meanwhile (its transaction holds the key's
   * row until it commits): the sender's effect runs, waits on the row, and rolls back with a refusal.
   */
  async function keyTakenMeanwhile(sender: (outcome: 'ok', key: string) => Promise<unknown>): Promise<void> {
    const key = randomUUID();
    const before = await bumps();
    const other = await svc.db.transaction();
    try {
      await other(OPERATION_KEYS).insert(otherRecord(key));
      const reply = sender('ok', key);
      // It ran its effect and now waits on the other record of the key.
      await eventually(async () => {
        const { rows } = await svc.db.raw<{ rows: Array<{ n: number }> }>(
          `select count(*)::int as n from pg_locks where not granted and pid in (select pid from pg_stat_activity where datname = current_database())`,
        );
        expect(rows[0]!.n).toBeGreaterThan(0);
      });
      await other.commit();
      expect(await reply).toEqual(KEY_REUSED_REPLY);
    } finally {
      if (!other.isCompleted()) await other.rollback();
    }
    expect(await bumps()).toBe(before);
  }

  it('refuses a key another service records while this request runs: its effect rolls back', () => keyTakenMeanwhile(send));

  it('runs a command again once its record expired, and answers the new reply from then on', async () => {
    const key = randomUUID();
    const first = await send('ok', key);
    await svc
      .db(OPERATION_KEYS)
      .where({ key })
      .update({ created_at: svc.db.raw(`now() - interval '25 hours'`) });
    const before = await bumps();
    const again = await send('ok', key);
    expect(again).toMatchObject({ ok: true, body: { count: expect.any(Number) } });
    expect(again).not.toEqual(first);
    expect(await bumps()).toBe(before + 1);
    expect(await send('ok', key)).toEqual(again);
    expect(await svc.db(OPERATION_KEYS).where({ key })).toHaveLength(1);
  });

  describe('a handler in two steps (gather, then apply)', () => {
    const sendGathered = (outcome: 'ok' | 'refuse' | 'hold' | 'outage' | 'stale', operationKey: string) =>
      svc.call('partners.test.bumpGathered', { outcome }, 1, { operationKey });
    /** The transaction that last wrote a row (its xmin): two rows with one xmin were committed together. */
    const writtenBy = async (sql: string, bindings: Knex.RawBinding[] = []) =>
      (await svc.db.raw<{ rows: Array<{ xid: string }> }>(sql, bindings)).rows.map((r) => r.xid);

    it('gathers again when apply finds its facts stale, twice at most, then answers the transient refusal and records nothing', async () => {
      const key = randomUUID();
      const before = await bumps();
      const gatheredBefore = gathered;
      staleLeft = 2;
      expect(await sendGathered('stale', key)).toMatchObject({ ok: true, body: { count: before + 1 } });
      expect([gathered - gatheredBefore, await bumps()]).toEqual([3, before + 1]);

      const again = randomUUID();
      staleLeft = 3;
      expect(await sendGathered('stale', again)).toMatchObject({ ok: false, status: 503, message: 'changed meanwhile' });
      expect([gathered - gatheredBefore, await bumps()]).toEqual([6, before + 1]);
      expect(await svc.db(OPERATION_KEYS).where({ key: again })).toHaveLength(0);
      staleLeft = 0;
    });

    it('records its reply in the transaction of its effect, and a replay answers the record without gathering again', async () => {
      const key = randomUUID();
      const before = await bumps();
      const first = await sendGathered('ok', key);
      expect(first).toEqual({ ok: true, status: 200, body: { message: `bumped from ${before}`, count: before + 1 } });
      const effect = await writtenBy('select xmin::text as xid from bumps order by id desc limit 1');
      const record = await writtenBy(`select xmin::text as xid from ${OPERATION_KEYS} where org_id = 1 and key = ?`, [key]);
      expect(record).toHaveLength(1);
      expect(record).toEqual(effect);

      const gatheredBefore = gathered;
      expect(await sendGathered('ok', key)).toEqual(first);
      expect(gathered).toBe(gatheredBefore);
      expect(await bumps()).toBe(before + 1);
    });

    it('records a refusal of its gather step like any other, and answers it again without gathering', async () => {
      const key = randomUUID();
      const before = await bumps();
      const first = await sendGathered('refuse', key);
      expect(first).toMatchObject({ ok: false, status: 400, code: 'invalid_state', message: 'refused before the transaction' });
      const gatheredBefore = gathered;
      expect(await sendGathered('refuse', key)).toEqual(first);
      expect(gathered).toBe(gatheredBefore);
      expect(await bumps()).toBe(before);
    });

    it('rolls its effect back when another request took the key meanwhile', () => keyTakenMeanwhile(sendGathered));

    /** Runs `body` while a two-step write with `key` is in its gather step (a call to another service that does not answer yet). */
    async function whileGathering(key: string, body: (first: Promise<RpcReply>) => Promise<void>): Promise<RpcReply> {
      let release!: () => void;
      const reached = new Promise<void>((resolve) => {
        held = { reached: resolve, release: new Promise<void>((r) => (release = r)) };
      });
      const first = sendGathered('hold', key);
      await reached;
      try {
        await body(first);
      } finally {
        release();
        held = undefined;
      }
      return first;
    }

    it('takes its key before its first step: a twin, or any request with the key, meanwhile is answered 409 and does nothing', async () => {
      const key = randomUUID();
      const before = await bumps();
      const reply = await whileGathering(key, async () => {
        const gatheredBefore = gathered;
        // Its twin, another body, another operation (one step): all 409, none of them runs a step.
        expect(await sendGathered('hold', key)).toEqual(KEY_IN_USE_REPLY);
        expect(await sendGathered('ok', key)).toEqual(KEY_IN_USE_REPLY);
        expect(await send('ok', key)).toEqual(KEY_IN_USE_REPLY);
        expect(gathered).toBe(gatheredBefore);
        expect(await bumps()).toBe(before);
        expect(await svc.db(OPERATION_KEYS).where({ key }).select('claim')).toEqual([{ claim: expect.any(String) }]);
      });
      expect(reply).toMatchObject({ ok: true, body: { count: before + 1 } });
      // Once it answered: its twin gets its reply, another body is refused 422.
      expect(await sendGathered('hold', key)).toEqual(reply);
      expect(await sendGathered('ok', key)).toEqual(KEY_REUSED_REPLY);
      expect(await svc.db(OPERATION_KEYS).where({ key }).select('claim', 'status')).toEqual([{ claim: null, status: 200 }]);
      expect(await bumps()).toBe(before + 1);
    });

    it('gives its key back when it ends with nothing to record, and a key left by a process that died is taken over once its lease is over', async () => {
      const key = randomUUID();
      expect(await sendGathered('outage', key)).toMatchObject({ ok: false, status: 503 });
      expect(await svc.db(OPERATION_KEYS).where({ key })).toEqual([]);
      expect(await sendGathered('ok', key)).toMatchObject({ ok: true });

      // A claim whose process died: held until its lease is over, then the retry runs.
      const orphan = randomUUID();
      await svc.db(OPERATION_KEYS).insert({
        org_id: 1,
        key: orphan,
        operation: 'partners.test.bumpGathered',
        request_hash: 'h',
        status: 0,
        reply: '',
        claim: randomUUID(),
        lease_until: svc.db.raw(`now() + interval '1 hour'`),
      });
      expect(await sendGathered('ok', orphan)).toEqual(KEY_IN_USE_REPLY);
      await svc
        .db(OPERATION_KEYS)
        .where({ key: orphan })
        .update({ lease_until: svc.db.raw(`now() - interval '1 second'`) });
      expect(await sendGathered('ok', orphan)).toMatchObject({ ok: true });
    });
  });

  describe('a handler in two steps whose gather only reads', () => {
    const sendRead = (outcome: 'ok' | 'hold', operationKey: string) => svc.call('partners.test.bumpRead', { outcome }, 1, { operationKey });

    it('writes no claim before its gather: a twin meanwhile gathers too, and the command still runs once', async () => {
      const key = randomUUID();
      const before = await bumps();
      let release!: () => void;
      const reached = new Promise<void>((resolve) => {
        held = { reached: resolve, release: new Promise<void>((r) => (release = r)) };
      });
      const first = sendRead('hold', key);
      await reached;
      held = undefined;
      let twin: RpcReply;
      try {
        expect(await svc.db(OPERATION_KEYS).where({ key })).toEqual([]);
        const gatheredBefore = gathered;
        twin = await sendRead('hold', key);
        expect(gathered).toBe(gatheredBefore + 1);
      } finally {
        release();
      }
      // The twin ran to its record first; the first finds it there, rolls back and answers it.
      expect(twin).toMatchObject({ ok: true, body: { count: before + 1 } });
      expect(await first).toEqual(twin);
      expect(await bumps()).toBe(before + 1);
    });

    it('runs a command once however many twins race it, and a replay gathers again but answers the record', async () => {
      for (let round = 0; round < 3; round++) {
        const key = randomUUID();
        const before = await bumps();
        const replies = await Promise.all(Array.from({ length: 6 }, () => sendRead('ok', key)));
        const answered = new Set(replies.filter((r) => r.ok).map((r) => JSON.stringify(r)));
        expect(answered.size).toBe(1);
        for (const r of replies.filter((r) => !r.ok)) expect(r).toEqual(KEY_IN_USE_REPLY);
        expect(await bumps()).toBe(before + 1);
        const gatheredBefore = gathered;
        expect(JSON.stringify(await sendRead('ok', key))).toBe([...answered][0]);
        expect(gathered).toBe(gatheredBefore + 1);
        expect(await bumps()).toBe(before + 1);
        expect(await svc.db(OPERATION_KEYS).where({ key }).select('claim', 'status')).toEqual([{ claim: null, status: 200 }]);
      }
    });
  });

  describe('a handler in two steps whose write is one statement after its gather', () => {
    const sendAlone = (outcome: 'ok' | 'moved', operationKey: string) =>
      svc.call('partners.test.bumpAlone', { outcome }, 1, { operationKey });

    it('gathers once, then stores alone with the facts; a replay answers the record', async () => {
      const key = randomUUID();
      const before = await bumps();
      const gatheredBefore = gathered;
      const reply = await sendAlone('ok', key);
      expect(reply).toMatchObject({ ok: true, body: { message: `bumped alone from ${before}`, count: before + 1 } });
      expect(gathered).toBe(gatheredBefore + 1);
      expect(await sendAlone('ok', key)).toEqual(reply);
      expect(await bumps()).toBe(before + 1);
      expect(await svc.db(OPERATION_KEYS).where({ key }).select('claim', 'status')).toEqual([{ claim: null, status: 200 }]);
    });

    it('records over its own claim when its gather may act elsewhere, and a replay answers the record without gathering', async () => {
      const key = randomUUID();
      const before = await bumps();
      const reply = await svc.call('partners.test.bumpAloneClaimed', { outcome: 'ok' }, 1, { operationKey: key });
      expect(reply).toMatchObject({ ok: true, body: { message: `bumped alone from ${before}`, count: before + 1 } });
      const gatheredBefore = gathered;
      expect(await svc.call('partners.test.bumpAloneClaimed', { outcome: 'ok' }, 1, { operationKey: key })).toEqual(reply);
      expect(gathered).toBe(gatheredBefore);
      expect(await svc.db(OPERATION_KEYS).where({ key }).select('claim', 'status')).toEqual([{ claim: null, status: 200 }]);
    });

    it.each([
      ['holds its key in the statement', 'partners.test.bumpAlone'],
      ['claimed its key before gather', 'partners.test.bumpAloneClaimed'],
    ])('leaves nothing when its statement dies waiting (it %s), and the retry writes once', async (_how, operation) => {
      const key = randomUUID();
      const before = await bumps();
      const table = await svc.db.transaction();
      try {
        // Reads go on (gather counts); the statement's insert waits for the table.
        await table.raw('lock table bumps in exclusive mode');
        const first = svc.call(operation, { outcome: 'ok' }, 1, { operationKey: key });
        const waiting = `from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query like '%insert into bumps select%'`;
        await eventually(async () => {
          const { rows } = await svc.db.raw<{ rows: Array<{ n: number }> }>(`select count(*)::int as n ${waiting}`);
          expect(rows[0]!.n).toBe(1);
        });
        // Its backend dies, as with a crash or a cut connection.
        await svc.db.raw(`select pg_terminate_backend(pid) ${waiting}`);
        expect(await first).toMatchObject({ ok: false });
        await table.commit();
        expect(await bumps()).toBe(before);
        const retried = await svc.call(operation, { outcome: 'ok' }, 1, { operationKey: key });
        expect(retried).toMatchObject({ ok: true, body: { count: before + 1 } });
        expect(await svc.call(operation, { outcome: 'ok' }, 1, { operationKey: key })).toEqual(retried);
        expect(await bumps()).toBe(before + 1);
      } finally {
        if (!table.isCompleted()) await table.rollback();
      }
    });

    it("answers its own request, not 409, when its failed statement's hold of the key outlives the error by a moment", async () => {
      const key = randomUUID();
      const before = await bumps();
      // A connection of the pool set aside stands for the failed statement's backend: PostgreSQL sends
      // a statement's error before it ends its transaction, whose end lets the key's lock go.
      const ghost = (await svc.db.client.acquireConnection()) as { query(sql: string, values: unknown[]): Promise<unknown> };
      const lock = keyLockOf({ orgId: 1, key }).toString();
      let letGo: Promise<unknown> | undefined;
      const holdOn = (_err: unknown, query: { sql?: string }) => {
        if (!query.sql?.includes('insert into bumps select')) return;
        svc.db.off('query-error', holdOn);
        void ghost.query('select pg_advisory_lock($1::bigint)', [lock]);
        letGo = new Promise((resolve) => setTimeout(resolve, 40)).then(() => ghost.query('select pg_advisory_unlock($1::bigint)', [lock]));
      };
      svc.db.on('query-error', holdOn);
      try {
        expect(await sendAlone('moved', key)).toMatchObject({ ok: true, body: { message: `bumped from ${before}`, count: before + 1 } });
        expect(letGo).toBeDefined();
        await letGo;
      } finally {
        svc.db.off('query-error', holdOn);
        await svc.db.client.releaseConnection(ghost);
      }
      expect(await bumps()).toBe(before + 1);
    });

    it('runs apply with the same facts when what the statement checks moved, and writes once', async () => {
      const key = randomUUID();
      const before = await bumps();
      const gatheredBefore = gathered;
      expect(await sendAlone('moved', key)).toMatchObject({ ok: true, body: { message: `bumped from ${before}`, count: before + 1 } });
      expect(gathered).toBe(gatheredBefore + 1);
      expect(await bumps()).toBe(before + 1);
    });
  });

  describe("a handler in two steps whose key's claim reads for its gather", () => {
    const sendClaimRead = (outcome: 'ok' | 'stale' | 'none', operationKey?: string) =>
      svc.call('partners.test.bumpClaimRead', { outcome }, 1, operationKey ? { operationKey } : {});

    /** The statements `body` sends on the service's pool, in order. */
    async function statementsOf(body: () => Promise<unknown>): Promise<string[]> {
      const sent: string[] = [];
      const listen = (q: { sql: string }) => void sent.push(q.sql);
      svc.db.on('query', listen);
      try {
        await body();
      } finally {
        svc.db.off('query', listen);
      }
      return sent;
    }

    it('gives gather the rows read by the one statement that claimed the key; a replay answers the record without either', async () => {
      const key = randomUUID();
      const before = await bumps();
      claimedSeen.length = 0;
      let reply: RpcReply | undefined;
      const sent = await statementsOf(async () => (reply = await sendClaimRead('ok', key)));
      expect(reply).toMatchObject({ ok: true, body: { message: `bumped from ${before}`, count: before + 1 } });
      expect(claimedSeen).toEqual([[{ n: before }]]);
      // The claim and the read went as one statement; gather read nothing more of bumps.
      const claimAndRead = sent.filter((sql) => sql.includes(`into ${OPERATION_KEYS}`) && sql.includes('from bumps'));
      expect(claimAndRead).toHaveLength(1);
      expect(sent.filter((sql) => sql.includes('count(*)') && sql.includes('bumps') && !sql.includes(OPERATION_KEYS))).toEqual([]);

      const gatheredBefore = gathered;
      expect(await sendClaimRead('ok', key)).toEqual(reply);
      expect([gathered, claimedSeen.length, await bumps()]).toEqual([gatheredBefore, 1, before + 1]);
    });

    it('reads for itself when it gathers again, its first facts stale', async () => {
      const before = await bumps();
      claimedSeen.length = 0;
      staleLeft = 1;
      expect(await sendClaimRead('stale', randomUUID())).toMatchObject({ ok: true, body: { count: before + 1 } });
      expect(claimedSeen).toEqual([[{ n: before }], undefined]);
      staleLeft = 0;
    });

    it('gives an empty list when the read finds nothing, and nothing to a request with no key, which claims none', async () => {
      claimedSeen.length = 0;
      expect(await sendClaimRead('none', randomUUID())).toMatchObject({ ok: true });
      expect(await sendClaimRead('ok')).toMatchObject({ ok: true });
      expect(claimedSeen).toEqual([[], undefined]);
    });

    it('reads nothing for a request whose key another holds: it is answered 409 and gathers nothing', async () => {
      const key = randomUUID();
      await svc.db(OPERATION_KEYS).insert({
        org_id: 1,
        key,
        operation: 'partners.test.bumpClaimRead',
        request_hash: 'h',
        status: 0,
        reply: '',
        claim: randomUUID(),
        lease_until: svc.db.raw(`now() + interval '1 hour'`),
      });
      claimedSeen.length = 0;
      expect(await sendClaimRead('ok', key)).toEqual(KEY_IN_USE_REPLY);
      expect(claimedSeen).toEqual([]);
    });
  });

  it("holds a key whatever characters it has: quotes and question marks are the key's own", async () => {
    const key = `it's ? a "key" $1 ?? \\`;
    const first = await send('ok', key);
    expect(first).toMatchObject({ ok: true });
    expect(await send('ok', key)).toEqual(first);
    expect(await svc.db(OPERATION_KEYS).where({ key }).select('key')).toEqual([{ key }]);
  });
});
