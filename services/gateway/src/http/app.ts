import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { knownPaths, normalizePath } from '@bo/contracts';
import { AnonymousLimiter } from '../rate-limit/anonymous';
import { clientAddress } from './client-address';
import type { GatewayDeps } from './deps';
import { METRICS_PATH, observeRequests, type Observed } from './observe';
import { createOperationServer } from './operations';
import { anonymousLimited } from './rate-limit';
import { sendEnvelope, setCors } from './reply';
import { createRoutes } from './routes';

/** The gateway's request listener, for `http.createServer`. */
export type GatewayApp = (req: IncomingMessage, res: ServerResponse) => void;

const KNOWN_PATHS = new Set(knownPaths());
const REQUEST_ID = /^[\w.:-]{1,100}$/;

/**
 * The HTTP edge. Every request is timed and logged (observe.ts), gets its request id and, but for
 * /metrics, the CORS headers. A POST to an operation's path goes straight to the operations
 * (operations.ts: auth, limits, the body, routing from the operation catalogue, idempotency, RPC),
 * on node's own request and response; everything else, which no key covers, to the Express routes
 * (routes.ts) once its client's budget of such requests allows it (AnonymousLimiter).
 */
export function createGatewayApp(deps: GatewayDeps): GatewayApp {
  const { config } = deps;
  const observe = observeRequests(deps.log);
  const anonymous = config.RATE_LIMIT_ANONYMOUS_PER_SECOND > 0 ? new AnonymousLimiter(config.RATE_LIMIT_ANONYMOUS_PER_SECOND) : undefined;
  const serveOperation = createOperationServer(deps, anonymous);
  const routes = createRoutes(deps);
  return (req, res) => {
    const path = pathOf(req.url ?? '/');
    const incoming = req.headers['x-request-id'];
    const locals: Observed = { requestId: typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID() };
    // Express keeps these as the routes' res.locals.
    (res as ServerResponse & { locals: Observed }).locals = locals;
    res.setHeader('X-Request-Id', locals.requestId);
    const normal = normalizePath(path);
    // /metrics shows every organization's request volumes: it carries no CORS headers, so a page of
    // another origin cannot read it in a visitor's browser (Prometheus does not need them).
    if (normal !== METRICS_PATH) setCors(res);
    const client = clientAddress(req.socket.remoteAddress, req.headers['x-forwarded-for'], config.TRUST_PROXY);
    observe(req, res, path, locals, () => {
      if (req.method === 'POST' && KNOWN_PATHS.has(normal)) return serveOperation(req, res, path, locals, client);
      const waitMs = anonymous?.take(client) ?? 0;
      if (waitMs > 0) return sendEnvelope(res, anonymousLimited(res, waitMs, anonymous as AnonymousLimiter));
      routes(req, res);
    });
  };
}

/** The path of a request target (`/crm/partners?x=1` or, rarely, `http://host/crm/partners`), as Express's req.path reads it. */
export function pathOf(target: string): string {
  if (target.startsWith('/')) {
    const end = target.search(/[?#]/);
    return end === -1 ? target : target.slice(0, end);
  }
  try {
    return new URL(target).pathname;
  } catch {
    return target;
  }
}
