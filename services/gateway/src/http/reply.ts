import type { Response } from 'express';
import { corsHeaders, envelope, type Envelope, type ErrorCode, type FieldError } from '@bo/contracts';

export function sendEnvelope(res: Response, env: Envelope): void {
  res.status(env.statusCode).json(env);
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

export function setCors(res: Response): void {
  for (const [k, v] of Object.entries(corsHeaders)) res.setHeader(k, v);
}
