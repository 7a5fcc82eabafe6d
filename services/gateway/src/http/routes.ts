import express, { type NextFunction, type Request, type Response } from 'express';
import { buildOpenApi, normalizePath } from '@bo/contracts';
import type { GatewayDeps } from './deps';
import { apiDocsRouter } from './api-docs';
import { Readiness } from './health';
import { METRICS_PATH, serveMetricsRoute, type Observed } from './observe';
import { errorEnvelope, sendEnvelope } from './reply';

/**
 * Everything but the operations' POSTs, on Express: pre-flight OPTIONS, /health (/live, /ready), /openapi.json,
 * the API reference, /metrics, and 404/405 for the rest. The front (app.ts) has already timed the
 * request, given it its id and set its CORS headers.
 */
export function createRoutes(deps: Pick<GatewayDeps, 'bus' | 'log' | 'config'>): express.Express {
  const { bus, log, config } = deps;
  const openapi = buildOpenApi();
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  app.options(/.*/, (req, res) => {
    if (normalizePath(req.path) !== METRICS_PATH) res.setHeader('Access-Control-Max-Age', '600');
    res.status(204).end();
  });

  // Liveness: the process answers. Readiness: every service answers its ping (health.ts).
  app.get('/health/live', (_req, res) => {
    res.json({ status: 'ok' });
  });
  const readiness = new Readiness(bus, config.HEALTH_SERVICES);
  app.get(['/health', '/health/ready'], async (_req, res) => {
    const health = await readiness.check();
    res.status(health.healthy ? 200 : 503).json({ status: health.healthy ? 'ok' : 'degraded', services: health.services });
  });

  app.get('/openapi.json', (_req, res) => {
    res.json(openapi);
  });
  app.use(apiDocsRouter());

  app.get(METRICS_PATH, serveMetricsRoute);

  app.use((req, res) => {
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST, OPTIONS');
      return sendEnvelope(res, errorEnvelope(405, 'method_not_allowed', `Method ${req.method} is not allowed; use POST`));
    }
    sendEnvelope(res, errorEnvelope(404, 'not_found', `No operation at ${req.path}`));
  });

  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const requestId = (res.locals as Observed).requestId;
    log.error({ err, request_id: requestId }, 'unexpected gateway error');
    sendEnvelope(res, errorEnvelope(500, 'internal_error', 'Internal error', { request_id: requestId }));
  });
  return app;
}
