import { z } from 'zod';

/** Stable, machine-readable error codes carried in `body.code`. */
export const errorCodes = [
  'validation_failed',
  'malformed_json',
  'not_found',
  'invalid_state',
  'duplicate',
  'unauthorized',
  'forbidden',
  'method_not_allowed',
  'payload_too_large',
  'unknown_action',
  'idempotency_conflict',
  /** An Idempotency-Key already used for another operation or another body (422). */
  'idempotency_key_reused',
  'credit_limit_exceeded',
  /** Validating a credit note would credit an invoice beyond its total: the message names what is still creditable. */
  'credit_exceeds_invoice',
  /** A bank statement (its account and statement id or sequence) imported before (409). */
  'duplicate_statement',
  /** The organization is over its rate limit or its requests in flight: retry after `Retry-After` seconds. */
  'rate_limited',
  'service_unavailable',
  'timeout',
  /** A write whose effect could not be confirmed (reply lost, timeout): retrying with the same Idempotency-Key is safe. */
  'outcome_unknown',
  'internal_error',
  /** An e-invoice already imported (same supplier, number and issue date): the message names the earlier import and its bill (409). */
  'duplicate_document',
] as const;
export type ErrorCode = (typeof errorCodes)[number];

export const fieldErrorSchema = z.object({ field: z.string(), message: z.string() });
export type FieldError = z.infer<typeof fieldErrorSchema>;

export const errorBodySchema = z.object({
  message: z.string(),
  code: z.enum(errorCodes),
  errors: z.array(fieldErrorSchema).optional(),
  request_id: z.string().optional(),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;

export const corsHeaders = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Headers': 'Content-Type, Authorization, language, Idempotency-Key, X-Request-Id',
  'Access-Control-Allow-Methods': 'POST, OPTIONS',
} as const;

export const envelopeSchema = z.object({
  statusCode: z.number().int(),
  headers: z.record(z.string(), z.string()),
  body: z.record(z.string(), z.unknown()),
});
export type Envelope = z.infer<typeof envelopeSchema>;

/** What a service answers to an RPC request. */
export type RpcReply =
  | { ok: true; status: number; body: Record<string, unknown> }
  | {
      ok: false;
      status: number;
      code: ErrorCode;
      message: string;
      errors?: FieldError[];
      /**
       * The refusal depends on another request still running, not on settled state: no one stores
       * it as the key's answer, so a retry is decided afresh.
       */
      transient?: boolean;
    };

export function envelope(statusCode: number, body: Record<string, unknown>): Envelope {
  return { statusCode, headers: { ...corsHeaders }, body };
}
