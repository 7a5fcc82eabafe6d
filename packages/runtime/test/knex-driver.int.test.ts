import knexFactory from 'knex';
import { createDb, type Knex } from '../src/db';
import {
  clientOf,
  KNEX_BEGIN,
  KNEX_COMMIT,
  KNEX_ROLLBACK,
  PgDialect,
  type KnexConnection,
  type KnexQuery,
  type KnexQueryEvent,
} from '../src/knex-driver';
import { createTestDatabase, type TestDatabase } from '@bo/testkit';

/**
 * Each assumption knex-driver.ts makes of knex's and node-postgres's internals, checked against the
 * installed versions over a real database. A failure here names the assumption a driver upgrade
 * broke; the runtime's write paths (prepared.ts, statement.ts, transaction.ts) rely on every one.
 */
describe('the knex and node-postgres internals the runtime relies on', () => {
  let database: TestDatabase;
  const pools: Knex[] = [];
  const pool = (max = 1): Knex => {
    const db = createDb(database.url, 'public', max);
    pools.push(db);
    return db;
  };

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await Promise.all(pools.map((db) => db.destroy()));
    await database.drop();
  });

  it("knex's PostgreSQL client class has the methods the runtime overrides and calls", () => {
    for (const method of ['_query', 'query', 'releaseConnection', 'acquireConnection', 'positionBindings', 'emit'] as const) {
      expect(typeof (PgDialect.prototype as unknown as Record<string, unknown>)[method]).toBe('function');
    }
  });

  it('numbers `?` placeholders as $1, $2…', () => {
    expect(clientOf(pool()).positionBindings('select ? as a, ? as b')).toBe('select $1 as a, $2 as b');
  });

  it("runs a transaction's statements through the client's _query between BEGIN; and COMMIT; or ROLLBACK, as texts", async () => {
    const seen: string[] = [];
    class Recording extends PgDialect {
      override _query(connection: object, obj: KnexQuery) {
        seen.push(obj.sql);
        return super._query(connection, obj);
      }
    }
    const db = knexFactory({
      client: Recording as unknown as typeof knexFactory.Client,
      connection: database.url,
      pool: { min: 0, max: 1 },
    });
    pools.push(db);
    await db.transaction(async (trx) => trx.raw('select 1'));
    await expect(
      db.transaction(async (trx) => {
        await trx.raw('select 2');
        throw new Error('undo');
      }),
    ).rejects.toThrow('undo');
    expect(seen).toEqual([KNEX_BEGIN, 'select 1', KNEX_COMMIT, KNEX_BEGIN, 'select 2', KNEX_ROLLBACK]);
  });

  it("passes the transaction's own COMMIT to the client's query as a string, its statements as objects", async () => {
    const db = pool();
    const kinds: string[] = [];
    await db.transaction(async (trx) => {
      const client = clientOf(trx);
      const query = client.query;
      client.query = function (this: unknown, connection, obj) {
        kinds.push(typeof obj);
        return query.call(this, connection, obj);
      };
      await trx.raw('select 1');
    });
    expect(kinds).toEqual(['object', 'string']);
  });

  it("marks a connection in a transaction with __knexTxId, and the pool hands out the transaction's own connection inside it", async () => {
    const db = pool();
    const outside = (await clientOf(db).acquireConnection()) as KnexConnection;
    expect(outside.__knexTxId).toBeUndefined();
    await clientOf(db).releaseConnection(outside);
    await db.transaction(async (trx) => {
      const inside = (await clientOf(trx).acquireConnection()) as KnexConnection;
      expect(typeof inside.__knexTxId).toBe('string');
      expect(inside).toBe(outside);
    });
  });

  it('destroys a connection marked __knex__disposed instead of handing it out again', async () => {
    const db = pool(1);
    const client = clientOf(db);
    const first = (await client.acquireConnection()) as KnexConnection;
    await client.releaseConnection(first);
    const again = (await client.acquireConnection()) as KnexConnection;
    expect(again).toBe(first);
    again.__knex__disposed = new Error('the server ended it');
    await client.releaseConnection(again);
    const next = (await client.acquireConnection()) as KnexConnection;
    expect(next).not.toBe(first);
    await client.releaseConnection(next);
  });

  it("gives node-postgres's connection pipelining and a corkable socket (createDb)", async () => {
    const client = clientOf(pool());
    const connection = (await client.acquireConnection()) as KnexConnection;
    try {
      expect(connection.pipeline).toBe(true);
      expect(typeof connection.connection?.stream?.cork).toBe('function');
      expect(typeof connection.connection?.stream?.uncork).toBe('function');
    } finally {
      await client.releaseConnection(connection);
    }
  });

  it("pairs each statement's query and query-response events by __knexQueryUid, with its text", async () => {
    const db = pool();
    const events: Array<[string, KnexQueryEvent]> = [];
    db.on('query', (q: KnexQueryEvent) => events.push(['query', q]));
    db.on('query-response', (_rows: unknown, q: KnexQueryEvent) => events.push(['response', q]));
    await db.raw('select ? as x', [1]);
    expect(events.map(([kind]) => kind)).toEqual(['query', 'response']);
    const [[, asked], [, answered]] = events as [[string, KnexQueryEvent], [string, KnexQueryEvent]];
    expect(typeof asked.__knexQueryUid).toBe('string');
    expect(answered.__knexQueryUid).toBe(asked.__knexQueryUid);
    expect(asked.sql).toBe('select $1 as x');
  });
});
