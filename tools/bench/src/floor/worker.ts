import { randomUUID } from 'node:crypto';
import type { ChannelModel, ConsumeMessage } from 'amqplib';
import type { Pool, QueryResult, QueryResultRow } from 'pg';
import { REPLY_TO, connectionUrl, exitWith, loadAmqplib, ready, receiveConfig, rpcRequestOptions } from '../ceiling/shared';
import { documentAmounts, exactDocumentAmounts, partnerPageReply, type LineInput } from './format';
import { CONSUMERS, EVENT, RPC, RPC_OF, consumerQueue, loadPg, rpcQueue, type FloorConfig, type FloorRole } from './shared';
import * as sql from './sql';

interface Reply {
  status: number;
  body: string;
  /** Runs once the reply is sent and the request acked: the event's publication. */
  after?: () => Promise<void>;
}
type Request = Record<string, unknown>;
interface Envelope {
  id: string;
  type: string;
  org_id: number;
  data: Record<string, unknown>;
}
type Call = (routingKey: string, body: Request, orgId: number) => Promise<{ status: number; body: string }>;

interface Service {
  /** `key`: the operation key the HTTP side made (the floor with the bar's requirements only). */
  rpc: Record<string, (req: Request, orgId: number, key: string | undefined) => Promise<Reply>>;
  events: Record<string, (event: Envelope) => Promise<unknown>>;
}

/** The statements a service runs, each as a named prepared statement (parsed and planned once per connection). */
interface Db {
  query<R extends QueryResultRow = QueryResultRow>(text: string, values: unknown[]): Promise<QueryResult<R>>;
}

function prepared(pool: Pool): Db {
  const names = new Map<string, string>();
  return {
    query<R extends QueryResultRow>(text: string, values: unknown[]) {
      let name = names.get(text);
      if (name === undefined) names.set(text, (name = `floor_${names.size}`));
      return pool.query<R>({ name, text, values });
    },
  };
}

interface Deps {
  pool: Db;
  /** Publishes an event persistent on the topic exchange and resolves on the broker's confirm. */
  publish: (type: string, eventId: string, orgId: number, envelope: string) => Promise<void>;
  call: Call;
  /** The real system's reply of each write, as the ceiling answers it (the floor does not format a write's reply). */
  reply: (routingKey: string) => string;
  /** FloorConfig.required: what the bar requires of every write, done as directly as the rest. */
  required: boolean;
}

/** A write whose operation key was recorded before: answered the reply recorded with it. */
class Replayed extends Error {
  constructor(readonly reply: string) {
    super('replayed');
  }
}

/**
 * A write: its statement as the floor runs it, or, given an operation key (required), the same
 * statement recording the key with the reply (sql.keyed), the key and the reply two more parameters.
 * A key recorded before fails the statement on the key's primary key, and nothing of it stays; the
 * request is then answered the recorded reply (Replayed).
 */
async function write(
  pool: Db,
  statement: { plain: string; keyed: string; schema: string },
  values: unknown[],
  key: string | undefined,
  reply: string,
) {
  if (key === undefined) return pool.query<{ envelope: string }>(statement.plain, values);
  try {
    return await pool.query<{ envelope: string }>(statement.keyed, [...values, key, reply]);
  } catch (err) {
    if ((err as { constraint?: string }).constraint !== 'operation_keys_pkey') throw err;
    // Every floor write's first parameter is its organization (sql.ts), the key's first column.
    const orgId = values[0];
    const { rows } = await pool.query<{ reply: string }>(sql.recordedReply(statement.schema), [orgId, key]);
    throw new Replayed(rows[0]?.reply ?? reply);
  }
}
const writeOf = (plain: string, schema: string, params: number) => ({ plain, keyed: sql.keyed(plain, schema, params), schema });
const CREATE_PARTNER = writeOf(sql.CREATE_PARTNER, 'partners', 9);
const CREATE_INVOICE = writeOf(sql.CREATE_INVOICE, 'invoicing', 9);
const VALIDATE_INVOICE = writeOf(sql.VALIDATE_INVOICE, 'invoicing', 3);

/**
 * Marks confirmed events' outbox rows published, one statement per schema every 100 ms, as the real
 * services mark their direct publications in batches.
 */
function publishedMarker(pool: Db): { mark: (schema: 'partners' | 'invoicing', eventId: string) => void; stop: () => void } {
  const waiting = { partners: [] as string[], invoicing: [] as string[] };
  const timer = setInterval(() => {
    for (const schema of ['partners', 'invoicing'] as const) {
      const ids = waiting[schema].splice(0);
      if (ids.length)
        void pool.query(sql.markPublished(schema), [ids]).catch((err: Error) => console.error(`floor: not marked: ${err.message}`));
    }
  }, 100);
  return { mark: (schema, eventId) => void waiting[schema].push(eventId), stop: () => clearInterval(timer) };
}

const json = (status: number, body: unknown): Reply => ({ status, body: JSON.stringify(body) });
const refuse = (status: number, message: string) => json(status, { message });

/**
 * A floor service: one Node process, one pg.Pool (size 10; named prepared statements), one AMQP connection. It answers its RPCs
 * (prefetch 32, manual acks, direct reply-to) with the minimum work the design asks of each, and
 * applies its consumers' events (prefetch 16, manual acks), each in one statement. No framework,
 * no validation, no idempotency record, no logging; with `required`, the key's record, exact
 * decimals and outbox marking, and nothing else.
 */
async function main(): Promise<void> {
  const config = (await receiveConfig()) as FloorConfig;
  const role = config.role as FloorRole;
  const pg = loadPg();
  const amqp = loadAmqplib();
  const pool = new pg.Pool({ connectionString: config.databaseUrl, max: config.poolSize });
  const conn = await amqp.connect(connectionUrl(config.amqpUrl), {
    noDelay: true,
    clientProperties: { connection_name: `${config.prefix}.${role}` },
  });
  const confirm = await conn.createConfirmChannel();
  await confirm.assertExchange(config.exchange, 'direct', { durable: true });
  await confirm.assertExchange(config.events, 'topic', { durable: true });
  const replies = new Map(config.routes.map((r) => [r.routingKey, r.reply]));
  const db = prepared(pool);
  const marker = config.required ? publishedMarker(db) : undefined;
  const deps: Deps = {
    pool: db,
    publish: (type, eventId, orgId, envelope) =>
      new Promise<void>((resolve, reject) => {
        confirm.publish(
          config.events,
          type,
          Buffer.from(envelope),
          {
            messageId: eventId,
            type,
            persistent: true,
            contentType: 'application/json',
            timestamp: Math.floor(Date.now() / 1000),
            headers: { 'x-attempt': 1, 'x-org-id': orgId },
          },
          (err) => {
            if (err) return reject(err instanceof Error ? err : new Error(String(err)));
            marker?.mark(type.startsWith('partners.') ? 'partners' : 'invoicing', eventId);
            resolve();
          },
        );
      }),
    call: role === 'invoicing' ? await rpcClient(conn, config) : () => Promise.reject(new Error('no RPC client')),
    reply: (routingKey) => replies.get(routingKey) ?? '{"message":"ok"}',
    required: config.required === true,
  };
  const service = SERVICES[role](deps);
  // Set when the bench stops the process: requests still in flight then are dropped, not answered.
  let closing = false;

  // Consumers first: every queue exists before the HTTP side starts, so no event goes unrouted.
  for (const consumer of CONSUMERS.filter((c) => c.role === role)) {
    const apply = service.events[consumer.name];
    if (!apply) throw new Error(`floor ${role}: no handler for ${consumer.name}`);
    const ch = await conn.createChannel();
    const queue = consumerQueue(config.prefix, consumer.name);
    await ch.assertQueue(queue, { durable: true });
    for (const type of consumer.events) await ch.bindQueue(queue, config.events, type);
    await ch.prefetch(config.eventPrefetch);
    const handle = async (msg: ConsumeMessage) => {
      try {
        await apply(JSON.parse(msg.content.toString()) as Envelope);
        if (!closing) ch.ack(msg);
      } catch (err) {
        if (closing) return;
        console.error(`floor ${consumer.name}: ${(err as Error).message}`);
        ch.nack(msg, false, false);
      }
    };
    await ch.consume(queue, (msg) => void (msg && handle(msg)), { noAck: false });
  }

  if (RPC_OF[role].length) {
    const ch = await conn.createChannel();
    const queue = rpcQueue(config.prefix, role);
    await ch.assertQueue(queue, { durable: true });
    for (const key of RPC_OF[role]) await ch.bindQueue(queue, config.exchange, key);
    await ch.prefetch(config.prefetch);
    const serve = async (msg: ConsumeMessage) => {
      let reply: Reply;
      try {
        const handler = service.rpc[msg.fields.routingKey];
        const orgId = Number(msg.properties.headers?.['x-org-id'] ?? 1);
        const key = msg.properties.headers?.['x-operation-key'] as string | undefined;
        reply = handler ? await handler(JSON.parse(msg.content.toString()) as Request, orgId, key) : refuse(404, 'unknown operation');
      } catch (err) {
        reply = err instanceof Replayed ? { status: 200, body: err.reply } : refuse(500, (err as Error).message);
      }
      if (closing) return;
      const { replyTo, correlationId } = msg.properties as { replyTo?: string; correlationId?: string };
      if (replyTo) {
        ch.sendToQueue(replyTo, Buffer.from(reply.body), {
          correlationId,
          contentType: 'application/json',
          headers: { 'x-ok': reply.status < 400, 'x-status': reply.status },
        });
      }
      ch.ack(msg);
      if (reply.after) {
        await reply.after().catch((err: Error) => {
          if (!closing) console.error(`floor ${role}: event not published: ${err.message}`);
        });
      }
    };
    await ch.consume(queue, (msg) => void (msg && serve(msg)), { noAck: false });
  }

  exitWith(async () => {
    closing = true;
    marker?.stop();
    await conn.close().catch(() => undefined);
    await pool.end().catch(() => undefined);
  });
  ready();
}

/** Asks another floor service as the real bus client does: direct reply-to, a correlation id, `mandatory`, an expiration. */
async function rpcClient(conn: ChannelModel, config: FloorConfig): Promise<Call> {
  const ch = await conn.createChannel();
  const pending = new Map<
    string,
    { resolve: (r: { status: number; body: string }) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }
  >();
  const settle = (correlationId: unknown) => {
    const p = pending.get(String(correlationId));
    if (!p) return undefined;
    pending.delete(String(correlationId));
    clearTimeout(p.timer);
    return p;
  };
  ch.on('return', (msg: { properties: { correlationId?: unknown } }) =>
    settle(msg.properties.correlationId)?.reject(new Error('no route')),
  );
  await ch.consume(
    REPLY_TO,
    (msg) => {
      if (!msg) return;
      settle(msg.properties.correlationId)?.resolve({
        status: Number(msg.properties.headers?.['x-status'] ?? 500),
        body: msg.content.toString(),
      });
    },
    { noAck: true },
  );
  return (routingKey, body, orgId) =>
    new Promise((resolve, reject) => {
      const correlationId = randomUUID();
      const timer = setTimeout(
        () => settle(correlationId)?.reject(new Error(`${routingKey}: no answer within ${config.timeoutMs} ms`)),
        config.timeoutMs,
      );
      pending.set(correlationId, { resolve, reject, timer });
      ch.publish(
        config.exchange,
        routingKey,
        Buffer.from(JSON.stringify(body)),
        rpcRequestOptions(routingKey, correlationId, config.timeoutMs, { 'x-org-id': orgId }),
      );
    });
}

/** A request's text field as given (a number as its digits), else null. */
const str = (v: unknown) => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null);

/** Sales' and invoicing's partner read model: one statement per event (inbox row + upsert of the copy). */
const applyPartner = (pool: Db, schema: 'sales' | 'invoicing', consumer: string) => {
  const statement = sql.applyPartner(schema);
  return (e: Envelope) => {
    const d = e.data;
    return pool.query(statement, [
      consumer,
      e.id,
      e.type,
      e.org_id,
      d['id'],
      d['partnername'],
      d['display_name'],
      d['partner_type'],
      d['currency'] ?? null,
      d['version'] ?? 1,
    ]);
  };
};

const SERVICES: Record<FloorRole, (deps: Deps) => Service> = {
  partners: ({ pool, publish, reply }) => ({
    rpc: {
      [RPC.listPartners]: async (req, orgId) => {
        const size = Number(req['page_size'] ?? 25);
        const { rows } = await pool.query<{ total: string; records: string }>(sql.LIST_PARTNERS, [orgId, size]);
        return { status: 200, body: partnerPageReply(rows[0]!.records, Number(rows[0]!.total), size) };
      },
      [RPC.createPartner]: async (req, orgId, key) => {
        const eventId = randomUUID();
        const answer = reply(RPC.createPartner);
        const { rows } = await write(
          pool,
          CREATE_PARTNER,
          [
            orgId,
            str(req['partnername']),
            str(req['partner_type']) ?? 'customer',
            str(req['email']),
            str(req['phone']),
            Number(req['credit_limit'] ?? 0),
            str(req['currency']),
            str(req['userid']),
            eventId,
          ],
          key,
          answer,
        );
        const envelope = rows[0]!.envelope;
        return {
          status: 200,
          body: answer,
          after: () => publish(EVENT.partnerCreated, eventId, orgId, envelope),
        };
      },
      [RPC.partnerCredit]: async (req, orgId) => {
        const { rows } = await pool.query<{ id: number; balance: string; committed: string; credit_limit: string }>(sql.PARTNER_CREDIT, [
          orgId,
          Number(req['partner_id']),
        ]);
        const p = rows[0];
        if (!p) return refuse(404, `Partner ${String(req['partner_id'])} not found`);
        return json(200, {
          partner: { id: p.id, balance: Number(p.balance), committed: Number(p.committed), credit_limit: Number(p.credit_limit) },
        });
      },
    },
    events: {
      'partners.ledger': (e) => {
        const d = e.data;
        return pool.query(sql.APPLY_LEDGER, [
          'partners.ledger',
          e.id,
          e.type,
          e.org_id,
          d['partner_id'],
          d['invoice_id'],
          d['invoicenumber'],
          d['invoicetotal'],
        ]);
      },
    },
  }),

  invoicing: ({ pool, publish, call, reply, required }) => ({
    rpc: {
      [RPC.createInvoice]: async (req, orgId, key) => {
        const lines = (req['line_items'] ?? []) as LineInput[];
        const ids = [...new Set(lines.map((l) => Number(l.product_id)))];
        // The catalog owns the products: one RPC for all the lines name.
        const products = await call(RPC.products, { org_id: orgId, ids }, orgId);
        if (products.status !== 200) return refuse(503, `catalog answered ${products.status}`);
        const found = new Map(
          (JSON.parse(products.body) as { products: Array<{ id: number; name: string }> }).products.map((p) => [p.id, p]),
        );
        const missing = ids.filter((id) => !found.has(id));
        if (missing.length) return refuse(400, `Unknown products ${missing.join(', ')}`);
        const amounts = required ? exactDocumentAmounts(lines) : documentAmounts(lines);
        const rows = lines.map((l, i) => ({
          product_id: Number(l.product_id),
          product_name: l.product_name ?? found.get(Number(l.product_id))!.name,
          quantity: l.quantity,
          price: l.price,
          discount: l.discount ?? 0,
          tax_rate: l.tax_rate ?? 0,
          tax_included: l.tax_included ?? false,
          ...amounts.lines[i],
        }));
        const eventId = randomUUID();
        const answer = reply(RPC.createInvoice);
        const result = await write(
          pool,
          CREATE_INVOICE,
          [
            orgId,
            Number(req['partner']),
            str(req['invoicetype']) ?? 'invoiceout',
            amounts.subtotal,
            amounts.tax,
            amounts.total,
            str(req['userid']),
            JSON.stringify(rows),
            eventId,
          ],
          key,
          answer,
        );
        const created = result.rows[0];
        if (!created) return refuse(400, `Partner ${String(req['partner'])} not found`);
        return {
          status: 200,
          body: answer,
          after: () => publish(EVENT.invoiceCreated, eventId, orgId, created.envelope),
        };
      },
      [RPC.validateInvoice]: async (req, orgId, key) => {
        const id = Number(req['id']);
        const found = await pool.query<{ partner_id: number; invoicetype: string; invoicestatus: string; invoicetotal: string }>(
          sql.INVOICE_FOR_VALIDATION,
          [orgId, id],
        );
        const invoice = found.rows[0];
        if (!invoice) return refuse(404, `Invoice ${id} not found`);
        if (invoice.invoicestatus !== 'draft') return refuse(400, `Invoice ${id} is ${invoice.invoicestatus}`);
        if (invoice.invoicetype === 'invoiceout') {
          // The credit check: the partners service owns the balance, asked before the transaction.
          const credit = await call(RPC.partnerCredit, { org_id: orgId, partner_id: invoice.partner_id }, orgId);
          if (credit.status !== 200) return refuse(credit.status === 404 ? 404 : 503, `partners answered ${credit.status}`);
          const p = (JSON.parse(credit.body) as { partner: { balance: number; committed: number; credit_limit: number } }).partner;
          if (p.credit_limit > 0 && p.balance + p.committed + Number(invoice.invoicetotal) > p.credit_limit)
            return refuse(400, 'credit limit exceeded');
        }
        const eventId = randomUUID();
        const answer = reply(RPC.validateInvoice);
        const result = await write(pool, VALIDATE_INVOICE, [orgId, id, eventId], key, answer);
        const validated = result.rows[0];
        if (!validated) return refuse(400, `Invoice ${id} is not a draft any more`);
        return {
          status: 200,
          body: answer,
          after: () => publish(EVENT.invoiceValidated, eventId, orgId, validated.envelope),
        };
      },
    },
    events: { 'invoicing.partners': applyPartner(pool, 'invoicing', 'invoicing.partners') },
  }),

  catalog: ({ pool }) => ({
    rpc: {
      [RPC.products]: async (req, orgId) => {
        const { rows } = await pool.query<{ id: number; name: string; type: string; price: string }>(sql.PRODUCTS, [
          orgId,
          req['ids'] ?? [],
        ]);
        return json(200, { products: rows.map((r) => ({ id: r.id, name: r.name, type: r.type, price: Number(r.price) })) });
      },
    },
    events: {
      'catalog.documents': (e) =>
        pool.query(sql.APPLY_STOCK, [
          'catalog.documents',
          e.id,
          e.type,
          e.org_id,
          e.data['invoicenumber'],
          JSON.stringify(e.data['lines'] ?? []),
        ]),
    },
  }),

  sales: ({ pool }) => ({ rpc: {}, events: { 'sales.partner-directory': applyPartner(pool, 'sales', 'sales.partner-directory') } }),
};

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
