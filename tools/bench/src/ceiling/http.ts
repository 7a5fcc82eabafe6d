import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { corsHeaders, parseWith, resolveOperation, userIdText } from '@bo/contracts';
import { REPLY_TO, connectionUrl, exitWith, loadAmqplib, loadExpress, ready, receiveConfig, rpcRequestOptions } from './shared';

const CORS_JSON = JSON.stringify(corsHeaders);
const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** Sends an answer's status and JSON text to the client. */
type Respond = (status: number, json: string) => void;

interface Pending {
  respond: Respond;
  timer: NodeJS.Timeout;
}

/**
 * The ceiling's gateway: a minimal Express 5 app (express.json, a bearer-token check; or node's http
 * with the same body reader, for the floor: CeilingConfig.front) that publishes
 * each POST as the real bus client does (one connection with Nagle off, direct reply-to,
 * `mandatory`, an expiration equal to the timeout, a correlation id, the same headers) and wraps the
 * worker's reply in the envelope as the real gateway does, without parsing it. No routing catalogue,
 * no validation, no idempotency, no database (except on a route `validatedAs` a contract: the floor
 * with the bar's requirements).
 */
async function main(): Promise<void> {
  const config = await receiveConfig();
  const express = loadExpress();
  const amqp = loadAmqplib();
  const routes = new Map(config.routes.map((r) => [r.path, r]));
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
  const envelope = (status: number, body: object) => JSON.stringify({ statusCode: status, headers: corsHeaders, body });
  ch.on('return', (msg: { properties: { correlationId?: unknown } }) => {
    settle(msg.properties.correlationId)?.respond(503, envelope(503, { message: 'no route', code: 'service_unavailable' }));
  });
  await ch.consume(
    REPLY_TO,
    (msg) => {
      if (!msg) return;
      const p = settle(msg.properties.correlationId);
      if (!p) return;
      const status = Number(msg.properties.headers?.['x-status'] ?? 500);
      p.respond(status, `{"statusCode":${status},"headers":${CORS_JSON},"body":${msg.content.toString()}}`);
    },
    { noAck: true },
  );

  /** A POST whose body was read: checked, published, answered when the reply comes. */
  const post = (authorization: string | undefined, path: string, body: Record<string, unknown>, respond: Respond) => {
    const match = BEARER.exec(authorization ?? '');
    if (!match || !tokens.has(match[1] as string)) {
      return respond(401, envelope(401, { message: 'Missing or unknown API key', code: 'unauthorized' }));
    }
    const route = routes.get(path);
    if (!route) return respond(404, envelope(404, { message: `No operation at ${path}`, code: 'not_found' }));
    const { routingKey } = route;
    const headers: Record<string, unknown> = { 'x-org-id': 1, 'x-user-id': userIdText(body['userid']) };
    if (route.validatedAs) {
      // The floor with the bar's requirements: the body checked against the contract, as the gateway
      // checks it, and an operation key made for the write to record, as the gateway makes one.
      const resolution = resolveOperation(route.validatedAs, body);
      if (resolution.kind !== 'operation') return respond(400, envelope(400, { message: 'Unknown operation', code: 'validation_failed' }));
      const parsed = parseWith(resolution.operation.request, body);
      if (!parsed.ok) return respond(400, envelope(400, { message: parsed.message, code: 'validation_failed', errors: parsed.errors }));
      headers['x-operation-key'] = randomUUID();
    }
    const correlationId = randomUUID();
    const timer = setTimeout(() => {
      if (settle(correlationId)) respond(504, envelope(504, { message: 'timeout', code: 'timeout' }));
    }, config.timeoutMs);
    pending.set(correlationId, { respond, timer });
    ch.publish(
      config.exchange,
      routingKey,
      Buffer.from(JSON.stringify(body)),
      rpcRequestOptions(routingKey, correlationId, config.timeoutMs, headers),
    );
  };

  const readJson = express.json({ limit: 1024 * 1024, type: () => true, strict: true });
  let server: Server;
  if (config.front === 'node') {
    server = createServer((req, res) => {
      const respond: Respond = (status, json) => {
        res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(json) });
        res.end(json);
      };
      if (req.method !== 'POST') return respond(405, envelope(405, { message: 'POST only', code: 'method_not_allowed' }));
      readJson(req, res, (err?: unknown) => {
        if (err) return respond(400, envelope(400, { message: 'Request body is not valid JSON', code: 'malformed_json' }));
        const path = (req.url ?? '/').split('?')[0] as string;
        post(req.headers.authorization, path, (req as { body?: Record<string, unknown> }).body ?? {}, respond);
      });
    });
  } else {
    const app = express();
    app.disable('x-powered-by');
    app.set('etag', false);
    app.use(readJson);
    app.post(/.*/, (req, res) => {
      post(req.header('authorization'), req.path, req.body as Record<string, unknown>, (status, json) => {
        res.status(status).type('application/json').send(json);
      });
    });
    server = createServer(app);
  }
  server.listen(config.port, '127.0.0.1', () => {
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
