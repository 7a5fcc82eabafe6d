import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import express from 'express';
import {
  envelope,
  idempotencyKeyPattern,
  inexactJsonNumbers,
  MAX_REPORTED_ERRORS,
  orgIdField,
  parseWith,
  resolveOperation,
  pathBodyLimit,
  bodyLimitOf,
  rpcTimeoutOf,
  userIdText,
  type Envelope,
  type Operation,
} from '@bo/contracts';
import { BusError, isDbUnavailable, parseRawReply, type Logger } from '@bo/runtime';
import { ApiKeyStore } from '../api-key/api-keys';
import type { GatewayAnswer } from '../forwarded-answer';
import type { AnonymousLimiter } from '../rate-limit/anonymous';
import type { GatewayDeps } from './deps';
import { scanJsonShape, type ShapeRefusal } from './json-shape';
import { withRequestSpan, type Observed } from './observe';
import { anonymousLimited, createRateLimits } from './rate-limit';
import { errorEnvelope, sendAnswer, sendEnvelope } from './reply';

/**
 * Answers a POST to an operation's path from `client` (client-address.ts): the request is read and
 * answered here, on node's own request and response.
 */
export type OperationServer = (req: IncomingMessage, res: ServerResponse, path: string, locals: Observed, client: string) => void;

/**
 * The operations: check the API key of the Authorization header, admit the key's organization
 * (its rate and requests in flight, rate-limit.ts), only then read the JSON body, its shape bounded
 * before it is parsed (json-shape.ts); check org_id, pick the operation from the path and selector,
 * charge its cost, validate it with its contract, and forward it with its Idempotency-Key to its
 * service over the bus, whose reply goes out as it came. A request refused before its body is read
 * (no key, a bad one, its organization over its limits) has its body left unread: node discards it.
 *
 * This runs on node's http objects, not through Express: Express's request pipeline (its
 * prototypes swapped onto every request and response, the router, res.send) was a fifth of the
 * gateway's CPU for a list (docs/performance.md, "Why the code is shaped so"). Express serves the
 * other routes (routes.ts).
 */
export function createOperationServer(deps: GatewayDeps, anonymous: AnonymousLimiter | undefined): OperationServer {
  const { db, bus, log, config } = deps;
  const keys = new ApiKeyStore(db, config.API_KEY_CACHE_MS);
  const limits = createRateLimits(deps);
  // Every POST body is read as JSON whatever its content type says: clients of the old API vary.
  // (Express's body reader is body-parser's, which needs no Express around it.) Its shape is checked
  // on the bytes before JSON.parse sees them, and the bytes are kept beside what JSON.parse made of
  // them: its numbers are checked as written (handlePost).
  // A body is read up to its path's limit: BODY_LIMIT_BYTES, or more on a path whose operations
  // carry files (Operation.maxBodyBytes); one reader per limit, made once.
  const readers = new Map<number, ReturnType<typeof express.json>>();
  const readerFor = (limit: number) => {
    let reader = readers.get(limit);
    if (!reader) readers.set(limit, (reader = express.json({ limit, type: () => true, strict: true, verify: checkAndKeepBytes })));
    return reader;
  };
  const readBody = (req: IncomingMessage, res: ServerResponse, limit: number) =>
    new Promise<unknown>((resolve) => readerFor(limit)(req, res, resolve));

  return (req, res, path, locals, client) => {
    void servePost(req, res, path, locals, client);
  };

  /** What a body the reader refused is answered with: the client's fault, unless it is not. */
  function bodyRefusal(err: unknown, requestId: string, limit: number): Envelope {
    if (err instanceof BodyShapeError) {
      const refusal = err.refusal;
      if (refusal.status === 413) return errorEnvelope(413, 'payload_too_large', refusal.message);
      return errorEnvelope(400, 'validation_failed', `Invalid request: ${refusal.error.message}`, { errors: [refusal.error] });
    }
    const type = (err as { type?: string }).type;
    if (type === 'entity.too.large') return errorEnvelope(413, 'payload_too_large', `Request body exceeds ${limit} bytes`);
    if (type === 'entity.parse.failed' || type === 'encoding.unsupported' || type === 'charset.unsupported') {
      return errorEnvelope(400, 'malformed_json', 'Request body is not valid JSON');
    }
    // Any other refusal of the body reader is the client's too (a corrupt gzip, deflate or brotli
    // stream, a body cut short): the body parser marks those with a 4xx status.
    const status = (err as { status?: unknown }).status;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      return errorEnvelope(400, 'malformed_json', 'Request body could not be read as JSON');
    }
    log.error({ err, request_id: requestId }, 'unexpected gateway error');
    return errorEnvelope(500, 'internal_error', 'Internal error', { request_id: requestId });
  }

  async function servePost(req: IncomingMessage, res: ServerResponse, path: string, locals: Observed, client: string): Promise<void> {
    const requestId = locals.requestId;
    // The request's logger is made when something is logged: most requests log nothing, and a pino
    // child costs every one of them its bindings' serialization.
    let child: Logger | undefined;
    const reqLog = () => (child ??= log.child({ request_id: requestId, path }));
    try {
      sendAnswer(res, await withRequestSpan(locals, () => handlePost(req, res, path, locals, client, reqLog)));
    } catch (err) {
      if (isDbUnavailable(err)) {
        reqLog().warn({ err: (err as Error).message }, 'gateway database unavailable');
        return sendEnvelope(
          res,
          errorEnvelope(503, 'service_unavailable', 'The service is unavailable; retry later', { request_id: requestId }),
        );
      }
      reqLog().error({ err }, 'gateway failure');
      sendEnvelope(res, errorEnvelope(500, 'internal_error', 'Internal error', { request_id: requestId }));
    } finally {
      limits.release(locals);
    }
  }

  /**
   * The organization of the request's key, or the refusal of a request no valid key covers: 401, or
   * 429 once its client is over its budget of those (AnonymousLimiter). A key the snapshot holds costs
   * nothing and spends no budget; one it does not hold spends a token of the client's budget, given
   * back if a look for keys made since finds it, so only failures spend it.
   */
  async function authenticate(req: IncomingMessage, res: ServerResponse, client: string): Promise<number | Envelope> {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    if (!match) {
      const waitMs = anonymous?.take(client) ?? 0;
      if (waitMs > 0) return anonymousLimited(res, waitMs, anonymous as AnonymousLimiter);
      return errorEnvelope(401, 'unauthorized', 'Missing API key: send Authorization: Bearer <key>');
    }
    const apiKey = match[1] as string;
    const known = keys.fromMemory(apiKey);
    if (typeof known === 'number') return known;
    if (known === null && anonymous) {
      const waitMs = anonymous.take(client);
      if (waitMs > 0) {
        // A key made since the snapshot is found for the client's next try.
        keys.lookForNewKeys();
        return anonymousLimited(res, waitMs, anonymous);
      }
      const org = await keys.orgOf(apiKey);
      if (org === undefined) return errorEnvelope(401, 'unauthorized', 'Unknown or revoked API key');
      anonymous.giveBack(client);
      return org;
    }
    // No fresh snapshot to say (or no budget to spend): the database is asked first.
    const org = await keys.orgOf(apiKey);
    if (org !== undefined) return org;
    const waitMs = anonymous?.take(client) ?? 0;
    if (waitMs > 0) return anonymousLimited(res, waitMs, anonymous as AnonymousLimiter);
    return errorEnvelope(401, 'unauthorized', 'Unknown or revoked API key');
  }

  async function handlePost(
    req: IncomingMessage & { body?: unknown },
    res: ServerResponse,
    path: string,
    locals: Observed,
    client: string,
    reqLog: () => Logger,
  ): Promise<GatewayAnswer> {
    const requestId = locals.requestId;
    const keyOrg = await authenticate(req, res, client);
    if (typeof keyOrg !== 'number') return keyOrg;
    locals.orgId = keyOrg;
    // The key's organization is limited before its body costs any work here.
    const early = limits.admitPath(res, locals, keyOrg, path);
    if (early) return early;

    const pathLimit = pathBodyLimit(path, config.BODY_LIMIT_BYTES);
    const unread = await readBody(req, res, pathLimit);
    const body: unknown = unread ? undefined : req.body;
    const fields = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
    // The key's organization pays for what its body asks, and for a request it then refuses (a body
    // it cannot read, 403, an unknown action) as much as for one it serves, before any more work here
    // or in a service.
    const resolution = fields ? resolveOperation(path, fields) : undefined;
    const limited = await limits.admitOperation(res, locals, resolution?.kind === 'operation' ? resolution.operation : undefined);
    if (limited) return limited;
    if (unread) return bodyRefusal(unread, requestId, pathLimit);
    if (!fields || !resolution) return errorEnvelope(400, 'validation_failed', 'Request body must be a JSON object');

    const org = parseWith(orgIdField, fields['org_id']);
    if (!org.ok) {
      const message = fields['org_id'] === undefined ? 'org_id is required' : 'org_id must be an integer id';
      return errorEnvelope(400, 'validation_failed', message, { errors: [{ field: 'org_id', message }] });
    }
    if (org.value !== keyOrg) return errorEnvelope(403, 'forbidden', 'This API key does not belong to the organization in org_id');
    if (resolution.kind === 'unknown_path') return errorEnvelope(404, 'not_found', `No operation at ${path}`);
    if (resolution.kind === 'unknown_action') return errorEnvelope(400, 'unknown_action', resolution.message);
    const op = resolution.operation;
    // The path's limit is its largest operation's: a body that names another is held to that one's.
    const opLimit = bodyLimitOf(op, config.BODY_LIMIT_BYTES);
    if (opLimit < pathLimit && ((req as WithBytes).jsonBytes?.length ?? 0) > opLimit)
      return errorEnvelope(413, 'payload_too_large', `Request body exceeds ${opLimit} bytes`);

    const parsed = parseWith(op.request, fields);
    if (!parsed.ok) return errorEnvelope(400, 'validation_failed', parsed.message, { errors: parsed.errors });
    // A number JSON.parse rounded (1e-400 to 0, 0.1000000000000000000001 to 0.1) is refused rather
    // than judged as the double it became: a field must see the value the client wrote.
    const text = bodyText(req);
    const inexact = text === undefined ? [] : inexactJsonNumbers(text, MAX_REPORTED_ERRORS);
    if (inexact.length > 0) {
      const message = `Invalid request: ${inexact.map((e) => e.message).join('; ')}`;
      return errorEnvelope(400, 'validation_failed', message, { errors: inexact });
    }

    // Every operation checks a key it is sent, so one document states one rule for the header; a
    // read then ignores it (it has no effect to repeat).
    const key = headerText(req.headers['idempotency-key']);
    if (key !== undefined && !idempotencyKeyPattern.test(key)) {
      const message = 'Idempotency-Key must be 1 to 255 printable ASCII characters, not starting or ending with a space';
      return errorEnvelope(400, 'validation_failed', message, { errors: [{ field: 'Idempotency-Key', message }] });
    }
    if (!op.write) return call(op, fields, org.value, requestId, {}, reqLog);
    if (key === undefined) {
      // Every write is recorded under a key where it takes effect, so a broker redelivery never runs
      // it twice. The key is told to the client: retrying an unknown outcome with it is safe.
      const operationKey = randomUUID();
      res.setHeader('Idempotency-Key', operationKey);
      return call(op, fields, org.value, requestId, { operationKey }, reqLog);
    }
    res.setHeader('Idempotency-Key', key);
    // The key's guarantee lives where the effect happens: the service records it with its reply in
    // the transaction of the effect, replays it, refuses it with another body, and answers 409 while
    // a twin still runs. The gateway keeps no copy: a copy cost every keyed write two PostgreSQL
    // round trips to spare the rare retry one RPC (measured with `npm run bench`).
    return call(op, fields, org.value, requestId, { operationKey: key }, reqLog);
  }

  async function call(
    op: Operation,
    body: Record<string, unknown>,
    orgId: number,
    requestId: string,
    keys: { operationKey?: string },
    reqLog: () => Logger,
  ): Promise<GatewayAnswer> {
    const userId = userIdText(body['userid']);
    try {
      const raw = await bus.requestRaw(op.name, body, { orgId, userId, requestId, ...keys }, rpcTimeoutOf(op, config.RPC_TIMEOUT_MS));
      // The service's body is forwarded as it arrived: parsing it only to serialize it again is the gateway's largest cost.
      if (raw.ok) return { statusCode: raw.status, forwarded: raw.content };
      const reply = parseRawReply(raw);
      if (reply.ok) return envelope(reply.status, reply.body);
      return errorEnvelope(reply.status, reply.code, reply.message, {
        errors: reply.errors,
        request_id: reply.status >= 500 ? requestId : undefined,
      });
    } catch (err) {
      if (!(err instanceof BusError)) throw err;
      reqLog().warn({ operation: op.name, kind: err.kind }, err.message);
      return busFailure(op, err, requestId);
    }
  }
}

interface WithBytes {
  jsonBytes?: Buffer;
  jsonCharset?: string;
}

/** A body refused for its shape before it was parsed (json-shape.ts). */
class BodyShapeError extends Error {
  readonly type = 'body.shape';
  constructor(
    readonly refusal: ShapeRefusal,
    readonly status = refusal.status,
  ) {
    super(refusal.status === 413 ? refusal.message : refusal.error.message);
  }
}

/**
 * The body reader's check of the bytes before it decodes and parses them: a shape past the limits is
 * refused (BodyShapeError), and the bytes are kept for the check of the numbers as written. A body in
 * UTF-16 is read in UTF-8 for the check; a charset this runtime cannot decode is refused as JSON it
 * cannot read.
 */
function checkAndKeepBytes(req: IncomingMessage, _res: ServerResponse, bytes: Buffer, charset: string): void {
  let utf8 = bytes;
  if (charset !== 'utf-8') {
    try {
      utf8 = Buffer.from(new TextDecoder(charset).decode(bytes), 'utf8');
    } catch {
      throw Object.assign(new Error(`unsupported charset ${charset}`), { status: 400, type: 'charset.unsupported' });
    }
  }
  const refusal = scanJsonShape(utf8);
  if (refusal) throw new BodyShapeError(refusal);
  Object.assign(req, { jsonBytes: bytes, jsonCharset: charset } satisfies WithBytes);
}

/** The body's text as JSON.parse read it; undefined for a charset this runtime cannot decode (none the body reader accepts). */
function bodyText(req: IncomingMessage & WithBytes): string | undefined {
  const { jsonBytes, jsonCharset = 'utf-8' } = req;
  if (jsonBytes === undefined) return undefined;
  if (jsonCharset === 'utf-8') return jsonBytes.toString('utf8');
  try {
    return new TextDecoder(jsonCharset).decode(jsonBytes);
  } catch {
    return undefined;
  }
}

/** A header's value as one text (node joins a repeated unknown header with ", "); undefined when absent. */
function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
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
