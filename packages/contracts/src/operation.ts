import { z } from 'zod';

export const serviceNames = ['partners', 'catalog', 'sales', 'invoicing', 'webhooks'] as const;
export type ServiceName = (typeof serviceNames)[number];

/** The HTTP path prefix of each service's domain. */
export const domainPrefix: Record<ServiceName, string> = {
  partners: '/crm',
  catalog: '/inventory',
  sales: '/sales',
  invoicing: '/invoicing',
  webhooks: '/integrations',
};

/**
 * How an operation is picked among the operations sharing one path, strongest first:
 * an `action` value, then a boolean flag set to true, then the presence of a field, then the default.
 */
export type Selector = { action: string } | { flag: string } | { present: string } | { default: true };

export interface Operation<Req extends z.ZodType = z.ZodType, Res extends z.ZodType = z.ZodType> {
  /** RPC routing key, also the operation's id in docs and OpenAPI. */
  name: string;
  service: ServiceName;
  summary: string;
  /** Paths the spec shows, canonical first (without trailing slash). */
  paths: readonly string[];
  /** Accepted on every path of the service's domain as well (the spec shows no path for it). */
  domainWide?: boolean;
  select: Selector;
  /** Writes honour `Idempotency-Key`. */
  write: boolean;
  request: Req;
  reply: Res;
  /**
   * Rules beyond the request schema, which no JSON Schema can hold: between fields (`valid_until`
   * not before the quotation date) or against stored records (a partner with open documents is not
   * deleted). A body that breaks one is refused with 400 `validation_failed` naming `field` (or a
   * field under it: `line_items` covers `line_items.2.quantity`). The OpenAPI document lists them.
   */
  rules?: readonly BusinessRule[];
  /**
   * What one call weighs against its organization's rate and concurrency limits and in its service's
   * turn-taking (docs/api.md, Rate limits), in units of a plain read. Absent: READ_COST for a read,
   * WRITE_COST for a write; a report or a document render states HEAVY_COST.
   */
  cost?: number;
  /**
   * A request that carries a file as base64 (an e-invoice, a bank statement) may be this many bytes
   * of JSON; the gateway reads the body of its path up to the largest of its operations' and refuses
   * past the chosen operation's own with 413 (docs/architecture.md, Body limit). Absent: the
   * gateway's BODY_LIMIT_BYTES, as for every other request.
   */
  maxBodyBytes?: number;
  /**
   * How long the gateway waits for this operation's answer, at least, where its work is long by
   * nature (an e-invoice run through the official rules, queued behind others on the rules' thread):
   * the gateway waits this or its RPC_TIMEOUT_MS, whichever is longer (rpcTimeoutOf). Absent: the
   * gateway's RPC_TIMEOUT_MS, as for every other request.
   */
  timeoutMs?: number;
}

/** A plain read (a list, a get). */
export const READ_COST = 1;
/** A write: a transaction, a recorded reply, events. */
export const WRITE_COST = 2;
/** A report over the books or a document rendered to a file: tens of milliseconds of a service's CPU and database. */
export const HEAVY_COST = 10;
/**
 * How long the gateway waits for a document rendered to a file: a service draws PDFs on one or two
 * threads, one at a time each, so a burst of renders (or the first, which starts its thread and
 * loads the fonts) queues behind the others rather than times out at RPC_TIMEOUT_MS.
 */
export const RENDER_TIMEOUT_MS = 30_000;

/** An operation's cost (Operation.cost). */
export function operationCost(op: Pick<Operation, 'cost' | 'write'>): number {
  return op.cost ?? (op.write ? WRITE_COST : READ_COST);
}

export interface BusinessRule {
  field: string;
  rule: string;
}

/**
 * Keeps an operation's literal name, paths and selector in its type (`const`), so the typed client
 * (packages/client) derives one method per operation from the catalogue, with no list of its own.
 */
export function defineOperation<const Op extends Operation>(op: Op): Op {
  return op;
}

export type RequestOf<O> = O extends Operation<infer Req, z.ZodType> ? z.output<Req> : never;
export type ReplyOf<O> = O extends Operation<z.ZodType, infer Res> ? z.input<Res> : never;
/** What a caller may send (before the schema's transforms) and what it receives: the client's view. */
export type RequestInputOf<O> = O extends Operation<infer Req, z.ZodType> ? z.input<Req> : never;
export type ReplyOutputOf<O> = O extends Operation<z.ZodType, infer Res> ? z.output<Res> : never;

export function selectorRank(select: Selector): number {
  if ('action' in select) return 0;
  if ('flag' in select) return 1;
  if ('present' in select) return 2;
  return 3;
}

export function describeSelector(select: Selector): string {
  if ('action' in select) return `action "${select.action}"`;
  if ('flag' in select) return `${select.flag}: true`;
  if ('present' in select) return `with ${select.present}`;
  return 'default';
}
