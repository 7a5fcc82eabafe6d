import { randomUUID } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import {
  buildOpenApi,
  corsHeaders,
  envelope,
  knownPaths,
  normalizePath,
  orgIdField,
  parseWith,
  resolveOperation,
  userIdText,
  type Envelope,
  type Operation,
} from '@bo/contracts';
import { BusError, isDbUnavailable, parseRawReply, requestHash, type Bus, type Knex, type Logger } from '@bo/runtime';
import { ApiKeyStore } from '../api-keys/api-keys';
import type { GatewayConfig } from '../config';
import { IdempotencyStore, leaseMsFor, type StoredAnswer } from '../idempotency/idempotency';
import { apiDocsRouter } from './api-docs';
import { checkHealth } from './health';
import { observeRequests, serveMetricsRoute, withRequestSpan, type Observed } from './observe';
import { errorEnvelope, sendEnvelope, setCors } from './reply';

export interface GatewayDeps {
  db: Knex;
  bus: Bus;
  log: Logger;
  config: Pick<GatewayConfig, 'BODY_LIMIT_BYTES' | 'API_KEY_CACHE_MS' | 'RPC_TIMEOUT_MS' | 'HEALTH_SERVICES' | 'IDEMPOTENCY_TTL_HOURS'>;
}

interface Locals {
  requestId: string;
}

const KNOWN_PATHS = new Set(knownPaths());
const CORS_JSON = JSON.stringify(corsHeaders);

/** What the gateway answers: an envelope, or one already serialized around a service's body. */
type Answer = StoredAnswer;

function sendAnswer(res: Response, answer: Answer): void {
  if ('raw' in answer) res.status(answer.statusCode).type('application/json').send(answer.raw);
  else sendEnvelope(res, answer);
}

/**
 * /metrics shows every organization's request volumes: it carries no CORS headers, so a page of
 * another origin cannot read it in a visitor's browser (Prometheus does not need them).
 */
function isMetricsPath(path: string): boolean {
  return normalizePath(path) === '/metrics';
}

/** The HTTP edge: envelope, CORS, auth, routing from the operation catalogue, idempotency, RPC. */
export function createGatewayApp(deps: GatewayDeps): express.Express {
  const { db, bus, log, config } = deps;
  const keys = new ApiKeyStore(db, config.API_KEY_CACHE_MS);
  const idempotency = new IdempotencyStore(db, config.IDEMPOTENCY_TTL_HOURS);
  const leaseMs = leaseMsFor(config.RPC_TIMEOUT_MS);
  const openapi = buildOpenApi();
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  app.use(observeRequests(log));
  app.use((req, res, next) => {
    const incoming = req.header('x-request-id');
    const requestId = incoming && /^[\w.:-]{1,100}$/.test(incoming) ? incoming : randomUUID();
    (res.locals as Locals).requestId = requestId;
    res.setHeader('X-Request-Id', requestId);
    if (!isMetricsPath(req.path)) setCors(res);
    next();
  });

  // Every POST body is read as JSON whatever its content type says: clients of the old API vary.
  const readJson = express.json({ limit: config.BODY_LIMIT_BYTES, type: () => true, strict: true });
  // Operations come first: a POST to an operation's path goes straight to its handler, past the GET
  // routes and the docs router, whose layers Express would otherwise try on every request.
  app.use((req, res, next) => {
    if (req.method !== 'POST' || !KNOWN_PATHS.has(normalizePath(req.path))) return next();
    readJson(req, res, (err?: unknown) => (err ? next(err) : void servePost(req, res).catch(next)));
  });

  app.options(/.*/, (req, res) => {
    if (!isMetricsPath(req.path)) res.setHeader('Access-Control-Max-Age', '600');
    res.status(204).end();
  });

  app.get('/health', async (_req, res) => {
    const health = await checkHealth(bus, config.HEALTH_SERVICES);
    res.status(health.healthy ? 200 : 503).json({ status: health.healthy ? 'ok' : 'degraded', services: health.services });
  });

  app.get('/openapi.json', (_req, res) => {
    res.json(openapi);
  });
  app.use(apiDocsRouter());

  app.get('/metrics', serveMetricsRoute);

  app.use((req, res) => {
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST, OPTIONS');
      return sendEnvelope(res, errorEnvelope(405, 'method_not_allowed', `Method ${req.method} is not allowed; use POST`));
    }
    sendEnvelope(res, errorEnvelope(404, 'not_found', `No operation at ${req.path}`));
  });

  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const requestId = (res.locals as Locals).requestId;
    const type = (err as { type?: string }).type;
    if (type === 'entity.too.large') {
      return sendEnvelope(res, errorEnvelope(413, 'payload_too_large', `Request body exceeds ${config.BODY_LIMIT_BYTES} bytes`));
    }
    if (type === 'entity.parse.failed' || type === 'encoding.unsupported' || type === 'charset.unsupported') {
      return sendEnvelope(res, errorEnvelope(400, 'malformed_json', 'Request body is not valid JSON'));
    }
    // Any other refusal of the body reader is the client's too (a corrupt gzip, deflate or brotli
    // stream, a body cut short): the body parser marks those with a 4xx status.
    const status = (err as { status?: unknown }).status;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      return sendEnvelope(res, errorEnvelope(400, 'malformed_json', 'Request body could not be read as JSON'));
    }
    log.error({ err, request_id: requestId }, 'unexpected gateway error');
    sendEnvelope(res, errorEnvelope(500, 'internal_error', 'Internal error', { request_id: requestId }));
  });

  async function servePost(req: Request, res: Response): Promise<void> {
    const requestId = (res.locals as Locals).requestId;
    const reqLog = log.child({ request_id: requestId, path: req.path });
    try {
      sendAnswer(res, await withRequestSpan(res, () => handlePost(req, res, requestId, reqLog)));
    } catch (err) {
      if (isDbUnavailable(err)) {
        reqLog.warn({ err: (err as Error).message }, 'gateway database unavailable');
        return sendEnvelope(
          res,
          errorEnvelope(503, 'service_unavailable', 'The service is unavailable; retry later', { request_id: requestId }),
        );
      }
      reqLog.error({ err }, 'gateway failure');
      sendEnvelope(res, errorEnvelope(500, 'internal_error', 'Internal error', { request_id: requestId }));
    }
  }

  async function handlePost(req: Request, res: Response, requestId: string, reqLog: Logger): Promise<Answer> {
    const body: unknown = req.body;
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      return errorEnvelope(400, 'validation_failed', 'Request body must be a JSON object');
    }
    const fields = body as Record<string, unknown>;

    const auth = req.header('authorization') ?? '';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    if (!match) return errorEnvelope(401, 'unauthorized', 'Missing API key: send Authorization: Bearer <key>');
    const keyOrg = await keys.orgOf(match[1] as string);
    if (keyOrg === undefined) return errorEnvelope(401, 'unauthorized', 'Unknown or revoked API key');
    (res.locals as Observed).orgId = keyOrg;

    const org = parseWith(orgIdField, fields['org_id']);
    if (!org.ok) {
      const message = fields['org_id'] === undefined ? 'org_id is required' : 'org_id must be an integer id';
      return errorEnvelope(400, 'validation_failed', message, { errors: [{ field: 'org_id', message }] });
    }
    if (org.value !== keyOrg) return errorEnvelope(403, 'forbidden', 'This API key does not belong to the organization in org_id');

    const resolution = resolveOperation(req.path, fields);
    if (resolution.kind === 'unknown_path') return errorEnvelope(404, 'not_found', `No operation at ${req.path}`);
    if (resolution.kind === 'unknown_action') return errorEnvelope(400, 'unknown_action', resolution.message);
    const op = resolution.operation;

    const parsed = parseWith(op.request, fields);
    if (!parsed.ok) return errorEnvelope(400, 'validation_failed', parsed.message, { errors: parsed.errors });

    if (!op.write) return (await call(op, fields, org.value, requestId, {}, reqLog)).answer;
    const key = req.header('idempotency-key');
    if (key === undefined) {
      // Every write is recorded under a key where it takes effect, so a broker redelivery never runs
      // it twice. The key is told to the client: retrying an unknown outcome with it is safe.
      const operationKey = randomUUID();
      res.setHeader('Idempotency-Key', operationKey);
      return (await call(op, fields, org.value, requestId, { operationKey }, reqLog)).answer;
    }
    if (!/^[\x20-\x7e]{1,255}$/.test(key)) {
      const message = 'Idempotency-Key must be 1 to 255 printable ASCII characters';
      return errorEnvelope(400, 'validation_failed', message, { errors: [{ field: 'Idempotency-Key', message }] });
    }
    res.setHeader('Idempotency-Key', key);
    const sent = { idempotencyKey: key, operationKey: key };
    const claim = await idempotency.claim(org.value, key, op.name, requestHash(op.name, fields), leaseMs).catch((err: unknown) => {
      // The fast path is an optimisation: without it the service's own record still answers once.
      if (!isDbUnavailable(err)) throw err;
      reqLog.warn({ err: (err as Error).message }, 'idempotency fast path unavailable');
      return undefined;
    });
    if (claim === undefined) return (await call(op, fields, org.value, requestId, sent, reqLog)).answer;
    if (claim.kind === 'replay') return claim.envelope;
    if (claim.kind === 'mismatch') {
      return errorEnvelope(400, 'idempotency_conflict', 'This Idempotency-Key was already used with a different request');
    }
    if (claim.kind === 'in_progress') {
      return errorEnvelope(409, 'idempotency_conflict', 'A request with this Idempotency-Key is still in progress; retry later');
    }
    let result: Answer;
    let settled: boolean;
    try {
      ({ answer: result, settled } = await call(op, fields, org.value, requestId, sent, reqLog));
    } catch (err) {
      await idempotency.endLease(org.value, key, claim.token).catch(() => undefined);
      throw err;
    }
    if (!settled) {
      await idempotency.endLease(org.value, key, claim.token).catch(() => undefined);
    } else {
      // The service holds the authoritative record; failing to copy it here only costs a later retry an RPC.
      await retry(() => idempotency.complete(org.value, key, claim.token, result), 3).catch(async (err: unknown) => {
        reqLog.warn({ err: (err as Error).message }, 'could not record the answer in the idempotency fast path');
        // Ending the lease sends a retry straight to the service, whose record replays this answer.
        await idempotency.endLease(org.value, key, claim.token).catch(() => undefined);
      });
    }
    return result;
  }

  async function call(
    op: Operation,
    body: Record<string, unknown>,
    orgId: number,
    requestId: string,
    keys: { idempotencyKey?: string; operationKey?: string },
    reqLog: Logger,
  ): Promise<{ answer: Answer; settled: boolean }> {
    const userId = userIdText(body['userid']);
    try {
      const raw = await bus.requestRaw(op.name, body, { orgId, userId, requestId, ...keys }, config.RPC_TIMEOUT_MS);
      // The service's body is forwarded as it arrived: parsing it only to serialize it again is the gateway's largest cost.
      if (raw.ok)
        return {
          settled: true,
          answer: { statusCode: raw.status, raw: `{"statusCode":${raw.status},"headers":${CORS_JSON},"body":${raw.json}}` },
        };
      const reply = parseRawReply(raw);
      if (reply.ok) return { settled: true, answer: envelope(reply.status, reply.body) };
      const answer = errorEnvelope(reply.status, reply.code, reply.message, {
        errors: reply.errors,
        request_id: reply.status >= 500 ? requestId : undefined,
      });
      // A 5xx, or a refusal that depends on another request still running, is not the key's answer.
      return { settled: reply.status < 500 && !reply.transient, answer };
    } catch (err) {
      if (!(err instanceof BusError)) throw err;
      reqLog.warn({ operation: op.name, kind: err.kind }, err.message);
      return { settled: false, answer: busFailure(op, err, requestId) };
    }
  }

  return app;
}

/**
 * What a transport failure means to the client. A request never sent (no route, broker down) did
 * nothing. A write whose reply never came (timeout, connection lost) may have taken effect: the
 * answer says the outcome is unknown and that a retry with the same Idempotency-Key is safe.
 */
function busFailure(op: Operation, err: BusError, requestId: string): Envelope {
  const unknownOutcome = err.kind === 'timeout' || err.kind === 'lost';
  if (op.write && unknownOutcome) {
    const why = err.kind === 'timeout' ? 'did not answer in time' : 'connection was lost before it answered';
    return errorEnvelope(
      err.kind === 'timeout' ? 504 : 503,
      'outcome_unknown',
      `The ${op.service} service ${why}; the write may or may not have taken effect. Retrying with the same Idempotency-Key is safe: it returns the original result`,
      { request_id: requestId },
    );
  }
  if (err.kind === 'timeout')
    return errorEnvelope(504, 'timeout', `The ${op.service} service did not answer in time`, { request_id: requestId });
  return errorEnvelope(503, 'service_unavailable', `The ${op.service} service is unavailable`, { request_id: requestId });
}

async function retry<T>(work: () => Promise<T>, attempts: number): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (attempt >= attempts) throw err;
      await new Promise((r) => setTimeout(r, 50 * attempt));
    }
  }
}
