import type { ErrorCode, FieldError, Operation, ReplyOutputOf, RequestInputOf, RpcReply } from '@bo/contracts';
import type { z } from 'zod';
import type { Bus, RequestMeta } from './bus/types';
import type { BaseConfig } from './config';
import { AppError, BusError } from './errors';

/**
 * How a call to another service's operation went wrong, as far as the caller can know:
 * - `refused`: the remote answered a refusal (4xx): it did nothing, and said why;
 * - `not_sent`: no service took the request (no route, no broker): the remote did nothing;
 * - `timeout`: no answer in time: the remote may have run, or may still run;
 * - `lost`: the connection dropped while the answer was awaited: the remote may have run;
 * - `failed`: the remote answered 5xx (an outage, a bug): for a write, the remote may have run.
 */
export type CallFailure = 'refused' | 'not_sent' | 'timeout' | 'lost' | 'failed';

/**
 * A call that did not answer its reply. It is an AppError already mapped the one way every caller
 * starts from, so a caller that has nothing to add lets it through:
 * - `refused`: the remote's own status, code, message and errors (a business refusal passes through);
 * - `timeout`: 504 `timeout`;
 * - `not_sent`, `lost`, `failed`: 503 `service_unavailable` (the remote's 5xx is not the caller's 500).
 * A caller that knows better (a not_found that means "none", a read that wrote nothing and so may
 * be retried whatever happened) catches it and answers its own, by `failure` and `code`.
 */
export class CallError extends AppError {
  constructor(
    /** The operation called. */
    readonly operation: string,
    readonly failure: CallFailure,
    status: number,
    code: ErrorCode,
    message: string,
    errors: FieldError[] | undefined,
    /** What the bus or the remote said, as it said it. */
    readonly detail: string,
    /** The status the remote answered, for `refused` and `failed`. */
    readonly remoteStatus?: number,
  ) {
    super(status, code, message, errors);
  }

  /** Whether the remote may have acted on the request (a write's outcome is then unknown). */
  get mayHaveRun(): boolean {
    return this.failure === 'timeout' || this.failure === 'lost' || this.failure === 'failed';
  }
}

export interface CallOptions {
  /** How long to wait for the answer; by default downstreamTimeoutMs of the caller's configuration. */
  timeoutMs?: number;
  /** What is asked, for the messages of a failure ("partner 12"); by default the operation's name. */
  what?: string;
}

/** The body a caller sends: the operation's request as the remote accepts it, `org_id` filled in by the call. */
export type CallBody<O extends Operation> = Omit<RequestInputOf<O>, 'org_id'>;

/**
 * Calls another service's operation: typed from its contract (the request it takes, the reply it
 * answers, checked against the contract's reply schema), on behalf of the caller's organization,
 * user and request, with no operation key (the calls between services are reads, or writes keyed by
 * what they make, like a conversion's source). Resolves with the reply; rejects with a CallError.
 */
export interface Call {
  <O extends Operation>(operation: O, body: CallBody<O>, opts?: CallOptions): Promise<ReplyOutputOf<O>>;
  /**
   * With `reads`: only what the caller relies on of the reply (a schema of it), so the remote may
   * grow its reply without breaking this caller while both run side by side.
   */
  <O extends Operation, R extends z.ZodType>(operation: O, body: CallBody<O>, opts: CallOptions & { reads: R }): Promise<z.output<R>>;
}

/**
 * How long a handler may wait on another service: well inside the gateway's own timeout, so the
 * handler's clear answer (504 with what is safe to retry, 503) reaches the client instead of a
 * bare gateway timeout with the work still running behind it.
 */
export function downstreamTimeoutMs(config: Pick<BaseConfig, 'RPC_TIMEOUT_MS'>): number {
  return Math.max(100, Math.floor(config.RPC_TIMEOUT_MS * 0.6));
}

/** The calls a handler (or a background task acting for `meta`'s organization) makes over `bus`. */
export function caller(
  bus: Pick<Bus, 'request'>,
  config: Pick<BaseConfig, 'RPC_TIMEOUT_MS'>,
  meta: Pick<RequestMeta, 'orgId' | 'userId' | 'requestId'>,
): Call {
  const sent: RequestMeta = { orgId: meta.orgId, userId: meta.userId, requestId: meta.requestId };
  return async (operation: Operation, body: object, opts: CallOptions & { reads?: z.ZodType } = {}) => {
    let reply: RpcReply;
    try {
      reply = await bus.request(
        operation.name,
        { ...body, org_id: String(meta.orgId) },
        sent,
        opts.timeoutMs ?? downstreamTimeoutMs(config),
      );
    } catch (err) {
      if (err instanceof BusError) throw busFailure(operation, err, opts.what);
      throw err;
    }
    if (!reply.ok) throw replyFailure(operation, reply, opts.what);
    const parsed = (opts.reads ?? operation.reply).safeParse(reply.body);
    // The remote broke its own contract: a bug, not an outage.
    if (!parsed.success) throw new Error(`${operation.name} answered a body its contract refuses: ${parsed.error.message}`);
    return parsed.data;
  };
}

/** The one mapping of a transport failure: 504 `timeout` when the answer did not come in time, else 503. */
export function busFailure(operation: Operation, err: BusError, what?: string): CallError {
  const asked = `The ${operation.service} service could not be asked for ${what ?? operation.name}`;
  switch (err.kind) {
    case 'timeout':
      return new CallError(operation.name, 'timeout', 504, 'timeout', `${asked}: ${err.message}; retry later`, undefined, err.message);
    case 'lost':
      return new CallError(
        operation.name,
        'lost',
        503,
        'service_unavailable',
        `${asked}: ${err.message}; retry later`,
        undefined,
        err.message,
      );
    case 'unroutable':
    case 'unavailable':
      return new CallError(
        operation.name,
        'not_sent',
        503,
        'service_unavailable',
        `${asked}: ${err.message}; retry later`,
        undefined,
        err.message,
      );
  }
}

/** The one mapping of a remote's refusal (passed through as it came) or failure (503). */
export function replyFailure(operation: Operation, reply: Extract<RpcReply, { ok: false }>, what?: string): CallError {
  if (reply.status >= 500) {
    return new CallError(
      operation.name,
      'failed',
      503,
      'service_unavailable',
      `The ${operation.service} service could not answer for ${what ?? operation.name}: ${reply.message}; retry later`,
      undefined,
      reply.message,
      reply.status,
    );
  }
  const refused = new CallError(
    operation.name,
    'refused',
    reply.status,
    reply.code,
    reply.message,
    reply.errors,
    reply.message,
    reply.status,
  );
  // A refusal that depends on another request still running stays one when passed on: nobody records it.
  return reply.transient ? refused.asTransient() : refused;
}
