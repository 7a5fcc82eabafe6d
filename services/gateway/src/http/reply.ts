import type { ServerResponse } from 'node:http';
import { corsHeaders, envelope, type Envelope, type ErrorCode, type FieldError } from '@bo/contracts';
import { forwardedPieces, type GatewayAnswer } from '../forwarded-answer';

/**
 * A JSON answer on node's response, with the headers Express's res.json would set. The text may
 * come in pieces (a forwarded answer's bytes): each is written as it is, and node's cork sends them
 * in one write.
 */
function sendJson(res: ServerResponse, status: number, pieces: ReadonlyArray<string | Buffer>): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  let length = 0;
  for (const piece of pieces) length += Buffer.byteLength(piece);
  res.setHeader('Content-Length', length);
  const last = pieces.length - 1;
  for (let i = 0; i < last; i++) res.write(pieces[i]);
  res.end(pieces[last]);
}

export function sendEnvelope(res: ServerResponse, env: Envelope): void {
  sendJson(res, env.statusCode, [JSON.stringify(env)]);
}

/** An envelope, or a service's answer forwarded as it came. */
export function sendAnswer(res: ServerResponse, answer: GatewayAnswer): void {
  if ('forwarded' in answer) sendJson(res, answer.statusCode, forwardedPieces(answer));
  else sendEnvelope(res, answer);
}

export function errorEnvelope(
  status: number,
  code: ErrorCode,
  message: string,
  extra: { errors?: FieldError[]; request_id?: string } = {},
): Envelope {
  const body: Record<string, unknown> = { message, code };
  if (extra.errors?.length) body['errors'] = extra.errors;
  if (extra.request_id) body['request_id'] = extra.request_id;
  return envelope(status, body);
}

/** The answer's own headers a browser client may read: its ids, and when and how much to retry. */
const EXPOSED = 'Idempotency-Key, X-Request-Id, Retry-After, RateLimit, RateLimit-Policy';

export function setCors(res: ServerResponse): void {
  for (const [k, v] of Object.entries(corsHeaders)) res.setHeader(k, v);
  res.setHeader('Access-Control-Expose-Headers', EXPOSED);
}
