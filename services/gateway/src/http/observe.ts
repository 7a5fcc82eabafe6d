import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request, Response } from 'express';
import { knownPaths, normalizePath } from '@bo/contracts';
import {
  extractContext,
  metrics,
  renderMetrics,
  secondsSince,
  SpanKind,
  startSpan,
  traceContextFrom,
  tracingEnabled,
  withActiveSpan,
  type Logger,
  type Span,
} from '@bo/runtime';

/** What a request carries for its access line and span (also the Express routes' res.locals). */
export interface Observed {
  requestId: string;
  /** The organization of the API key, once it is known. */
  orgId?: number;
  span?: Span;
}

/** The path of the metrics route, which answers without CORS headers (app.ts). */
export const METRICS_PATH = '/metrics';

const ROUTES = new Set(knownPaths());
/** The GET routes the gateway serves besides the operations; anything else is `other`, so labels stay bounded. */
const OTHER_ROUTES = new Set(['/health', '/health/live', '/health/ready', '/openapi.json', '/asyncapi.json', '/docs', METRICS_PATH]);

/** The route label of a path: an operation path or a known route as it is, never a raw unknown path. */
export function routeLabel(path: string): string {
  const normal = normalizePath(path);
  return ROUTES.has(normal) || OTHER_ROUTES.has(normal) ? normal : 'other';
}

/** The status a request the client abandoned before its answer is recorded with. */
export const CLIENT_CLOSED_REQUEST = 499;

/** The access log line's fields. */
export function accessLogFields(req: { method?: string; path: string }, status: number, ms: number, locals: Observed) {
  return { method: req.method, path: req.path, status, ms: Math.round(ms * 10) / 10, request_id: locals.requestId, org_id: locals.orgId };
}

/**
 * First on every request: times it; at its end observes the HTTP histogram, writes one access log
 * line and ends the request's span (a server span continuing the client's `traceparent`, if it sent
 * one). `next` runs inside that span; the POST handler enters it again (withRequestSpan), so RPCs
 * continue it.
 */
export function observeRequests(log: Logger) {
  return (req: IncomingMessage, res: ServerResponse, path: string, locals: Observed, next: () => void): void => {
    const started = performance.now();
    const method = req.method ?? 'GET';
    if (tracingEnabled()) {
      const route = routeLabel(path);
      locals.span = startSpan('gateway', `${method} ${route}`, SpanKind.SERVER, extractContext(traceContextFrom(req.headers)), {
        'http.request.method': method,
        'http.route': route,
        'url.path': path,
      });
    }
    // `close` also comes when the client went away before the answer was complete: that request is
    // counted and logged as 499 (nginx's "client closed request"), not as the status it never got.
    res.once('close', () => {
      const ms = performance.now() - started;
      const status = res.writableFinished ? res.statusCode : CLIENT_CLOSED_REQUEST;
      metrics.httpDuration.labels('gateway', method, routeLabel(path), String(status)).observe(secondsSince(started));
      if (log.isLevelEnabled('info')) log.info(accessLogFields({ method, path }, status, ms, locals), 'request');
      if (locals.span) {
        locals.span.setAttribute('http.response.status_code', status);
        if (locals.requestId) locals.span.setAttribute('request.id', locals.requestId);
        if (locals.orgId !== undefined) locals.span.setAttribute('org.id', locals.orgId);
        locals.span.end();
      }
    });
    // GET routes (/health's pings) run inside the span; POST bodies arrive on stream events that lose
    // it, so the POST handler enters it again (withRequestSpan).
    if (locals.span) withActiveSpan(locals.span, next);
    else next();
  };
}

/** Runs the request's work with its span active (the span itself ends with the response). */
export function withRequestSpan<T>(locals: Observed, work: () => Promise<T>): Promise<T> {
  const span = locals.span;
  return span ? withActiveSpan(span, work) : work();
}

/** GET /metrics: this process's registry (in the single-process mode, every service's). */
export async function serveMetricsRoute(_req: Request, res: Response): Promise<void> {
  const { contentType, body } = await renderMetrics();
  res.status(200).type(contentType).send(body);
}
