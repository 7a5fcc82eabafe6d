import { randomUUID } from 'node:crypto';
import type { Response } from 'express';
import { corsHeaders, userIdText } from '@bo/contracts';
import { REPLY_TO, connectionUrl, exitWith, loadAmqplib, loadExpress, ready, receiveConfig, rpcRequestOptions } from './shared';

const CORS_JSON = JSON.stringify(corsHeaders);
const BEARER = /^Bearer\s+(\S+)\s*$/i;

interface Pending {
  res: Response;
  timer: NodeJS.Timeout;
}

/**
 * The ceiling's gateway: a minimal Express 5 app (express.json, a bearer-token check) that publishes
 * each POST as the real bus client does (one connection with Nagle off, direct reply-to,
 * `mandatory`, an expiration equal to the timeout, a correlation id, the same headers) and wraps the
 * worker's reply in the envelope as the real gateway does, without parsing it. No routing catalogue,
 * no validation, no idempotency, no database.
 */
async function main(): Promise<void> {
  const config = await receiveConfig();
  const express = loadExpress();
  const amqp = loadAmqplib();
  const routes = new Map(config.routes.map((r) => [r.path, r.routingKey]));
  const tokens = new Set([config.token]);

  const conn = await amqp.connect(connectionUrl(config.amqpUrl), {
    noDelay: true,
    clientProperties: { connection_name: `${config.queue}.http` },
  });
  const ch = await conn.createChannel();
  const pending = new Map<string, Pending>();
  const settle = (correlationId: unknown): Pending | undefined => {
    const p = pending.get(String(correlationId));
    if (!p) return undefined;
    pending.delete(String(correlationId));
    clearTimeout(p.timer);
    return p;
  };
  ch.on('return', (msg: { properties: { correlationId?: unknown } }) => {
    settle(msg.properties.correlationId)
      ?.res.status(503)
      .json({ statusCode: 503, headers: corsHeaders, body: { message: 'no route', code: 'service_unavailable' } });
  });
  await ch.consume(
    REPLY_TO,
    (msg) => {
      if (!msg) return;
      const p = settle(msg.properties.correlationId);
      if (!p) return;
      const status = Number(msg.properties.headers?.['x-status'] ?? 500);
      p.res
        .status(status)
        .type('application/json')
        .send(`{"statusCode":${status},"headers":${CORS_JSON},"body":${msg.content.toString()}}`);
    },
    { noAck: true },
  );

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(express.json({ limit: 1024 * 1024, type: () => true, strict: true }));
  app.post(/.*/, (req, res) => {
    const match = BEARER.exec(req.header('authorization') ?? '');
    if (!match || !tokens.has(match[1] as string)) {
      res
        .status(401)
        .json({ statusCode: 401, headers: corsHeaders, body: { message: 'Missing or unknown API key', code: 'unauthorized' } });
      return;
    }
    const routingKey = routes.get(req.path);
    if (!routingKey) {
      res.status(404).json({ statusCode: 404, headers: corsHeaders, body: { message: `No operation at ${req.path}`, code: 'not_found' } });
      return;
    }
    const correlationId = randomUUID();
    const timer = setTimeout(() => {
      if (settle(correlationId))
        res.status(504).json({ statusCode: 504, headers: corsHeaders, body: { message: 'timeout', code: 'timeout' } });
    }, config.timeoutMs);
    pending.set(correlationId, { res, timer });
    const body = req.body as Record<string, unknown>;
    ch.publish(
      config.exchange,
      routingKey,
      Buffer.from(JSON.stringify(body)),
      rpcRequestOptions(routingKey, correlationId, config.timeoutMs, { 'x-org-id': 1, 'x-user-id': userIdText(body['userid']) }),
    );
  });

  const server = app.listen(config.port, '127.0.0.1', (err?: Error) => {
    if (err) throw err;
    server.keepAliveTimeout = 65_000;
    ready();
  });
  exitWith(async () => {
    server.close();
    server.closeAllConnections();
    await conn.close().catch(() => undefined);
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
