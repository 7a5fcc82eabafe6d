import type { z } from 'zod';
import type { Operation, ReplyOf, RequestOf, RpcReply, ServiceName } from '@bo/contracts';
import { parseWith } from '@bo/contracts';
import type { Bus, RequestMeta } from './bus/types';
import { baseConfigSchema, type BaseConfig } from './config';
import { migrate, type Knex, type Migration } from './db';
import { runtimeMigrations } from './runtime-migrations';
import { isDbUnavailable, isTransientConflict, retryTransientConflicts } from './db-errors';
import { AppError } from './errors';
import {
  AlreadyRecorded,
  findRecorded,
  holdKey,
  isKeyInUse,
  KEY_IN_USE_REPLY,
  recordReply,
  replayOf,
  requestHash,
  type OperationKey,
} from './idempotency';
import { inboxSubscription, type InboxHandlerDef } from './inbox';
import { plainBody, type Serializable } from './json-text';
import type { Logger } from './logger';
import { observeService } from './observability/observe-service';
import { OutboxRelay } from './outbox';
import { inTransaction, withFlatTransactions } from './transaction';
import { periodicTask, type BackgroundTask } from './periodic';
import { purgeExpired, retentionWindows } from './retention';

/** What a handler gets besides its validated request. */
export interface HandlerContext extends RequestMeta {
  /**
   * For a write carrying an operation key: the transaction its effect and recorded reply commit in
   * (a handler's own `ctx.db.transaction` runs in it without a savepoint unless one is needed, see
   * inTransaction). Otherwise the service's pool.
   */
  db: Knex;
  bus: Bus;
  log: Logger;
  config: BaseConfig;
  /**
   * Handlers with `transactions: 'own'` only: records the write's reply inside the handler's last
   * transaction, beside its effect, as that transaction's last statement: the transaction commits
   * with it, and a statement after it fails loudly. Elsewhere it does nothing.
   */
  finish(trx: Knex.Transaction, body: Record<string, unknown>): Promise<void>;
}

export interface HandlerOptions {
  /**
   * `runtime` (default): a write runs in one transaction the runtime opens, which also records its
   * reply. `own`: the handler opens its own transactions (so it can call another service with none
   * open) and records its reply with `ctx.finish` in the last one; it must be safe to run again
   * after any partial failure, as a redelivery or retry runs it again until a reply is recorded.
   */
  transactions?: 'runtime' | 'own';
}

export interface BoundHandler {
  operation: Operation;
  options: HandlerOptions;
  run(request: unknown, ctx: HandlerContext): Promise<Record<string, unknown>>;
}

/**
 * Binds a handler to its operation; the request and reply types flow from the contract's zod
 * schemas. A top-level field of the reply may be given as the JSON text PostgreSQL wrote (JsonText).
 */
export function handler<O extends Operation>(
  operation: O,
  run: (request: RequestOf<O>, ctx: HandlerContext) => Promise<Serializable<ReplyOf<O>>>,
  options: HandlerOptions = {},
): BoundHandler {
  return { operation, options, run };
}

export interface ServiceDeps {
  db: Knex;
  bus: Bus;
  log: Logger;
  config: BaseConfig;
}

export interface ServiceDefinition {
  name: ServiceName;
  /** Settings of this service only, read from the environment beside the base ones. */
  settings?: z.ZodObject;
  migrations: readonly Migration[];
  handlers: readonly BoundHandler[];
  /** Events it consumes, each through the inbox. */
  subscriptions?: readonly InboxHandlerDef[];
  background?: (deps: ServiceDeps & { relay: OutboxRelay }) => BackgroundTask[];
}

export interface RunningService {
  name: ServiceName;
  relay: OutboxRelay;
  /** Starts publishing (outbox relay) and background tasks; see StartOptions. */
  begin(): void;
  /** Stops taking work, lets handlers in flight finish and flushes the outbox. */
  stop(): Promise<void>;
}

/** The configuration schema of a service: the base settings plus its own. */
export function serviceConfigSchema(def: Pick<ServiceDefinition, 'settings'>): z.ZodType<BaseConfig> {
  // The service's own keys ride along on the config object; the service reads them with its schema.
  return (def.settings ? baseConfigSchema.extend(def.settings.shape) : baseConfigSchema) as unknown as z.ZodType<BaseConfig>;
}

/**
 * How long a handler may wait on another service: well inside the gateway's own timeout, so the
 * handler's clear answer (504 with what is safe to retry, 503) reaches the client instead of a
 * bare gateway timeout with the work still running behind it.
 */
export function downstreamTimeoutMs(config: Pick<BaseConfig, 'RPC_TIMEOUT_MS'>): number {
  return Math.max(100, Math.floor(config.RPC_TIMEOUT_MS * 0.6));
}

export const pingOperation = (service: string) => `${service}.ping`;

export interface StartOptions {
  /**
   * `later`: answer RPCs and subscribe, but publish nothing yet (outbox relay, background tasks)
   * until `begin()`. The single-process system starts every service this way and then begins them
   * all, because the in-process bus delivers an event only to consumers already subscribed.
   */
  begin?: 'now' | 'later';
}

export async function startService(def: ServiceDefinition, deps: ServiceDeps, opts: StartOptions = {}): Promise<RunningService> {
  const { db, log, config } = deps;
  const applied = await migrate(db, def.name, [...runtimeMigrations, ...def.migrations]);
  if (applied.length) log.info({ migrations: applied }, 'migrations applied');
  const observed = observeService(def.name, deps);
  const bus = observed.bus;
  const relay = new OutboxRelay(db, bus, log, config.OUTBOX_POLL_MS);

  const byName = new Map(def.handlers.map((h) => [h.operation.name, h]));
  // Under test every reply is checked against its contract, so a handler cannot drift from it unseen.
  const checkReplies = process.env.NODE_ENV === 'test';
  const okReply = (h: BoundHandler, body: Record<string, unknown>): RpcReply => {
    if (checkReplies) {
      // A reply is the system's own output: no request size limit applies (it may list every location).
      const checked = parseWith(h.operation.reply, plainBody(body), { limits: null });
      if (!checked.ok)
        throw new AppError(500, 'internal_error', `Reply of ${h.operation.name} does not match its contract: ${checked.message}`);
    }
    return { ok: true, status: 200, body };
  };
  const noFinish = () => Promise.resolve();
  const flatDb = withFlatTransactions(db);

  /** A read, or a write with no operation key (an internal call): the handler alone. */
  const runPlain = async (h: BoundHandler, request: unknown, ctx: HandlerContext) => okReply(h, await h.run(request, ctx));

  /**
   * A write with an operation key: run with the reply recorded beside the effect, or answered from
   * the record if it already took effect here. A twin that committed first (a redelivery racing the
   * original, a client retry) wins: this run rolls back and answers the twin's reply.
   *
   * In the runtime's one transaction the record is not looked up first: nearly every key is new, and
   * a key already recorded makes the record's insert find it, so the run rolls back and answers the
   * recorded reply, with nothing of it left (one statement and one pool checkout less per write).
   * A handler owning its transactions may call another service before any of them, so its record is
   * looked up first.
   *
   * The transaction holds the key from its first statement (holdKey): a twin arriving while it runs
   * is answered 409 at once, instead of running the command only to roll it back at the record. A
   * handler owning its transactions has no such hold; its twins are settled by its record as ever.
   */
  const runRecorded = async (h: BoundHandler, request: unknown, ctx: HandlerContext, key: OperationKey): Promise<RpcReply> => {
    const owning = h.options.transactions === 'own';
    if (owning) {
      const prior = await findRecorded(db, key);
      if (prior) return replayOf(prior, key);
    }
    try {
      return await retryTransientConflicts(() =>
        owning
          ? runOwningTransactions(h, request, ctx, key)
          : inTransaction(db, async (trx) => {
              await holdKey(trx, key);
              const reply = okReply(h, await h.run(request, { ...ctx, db: trx }));
              // The record is the transaction's last statement: its COMMIT goes out with it.
              if (!(await recordReply(trx, key, reply, { commit: true }))) throw new AlreadyRecorded();
              return reply;
            }),
      );
    } catch (err) {
      const twin = await findRecorded(db, key).catch(() => undefined);
      if (twin) return replayOf(twin, key);
      if (isKeyInUse(err)) return KEY_IN_USE_REPLY;
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      if (err.transient) return errorReply(err);
      // A refusal is recorded too, so the key answers the same way however often it is retried.
      const refusal = errorReply(err);
      const recorded = await recordReply(db, key, refusal).catch(() => true);
      if (!recorded) {
        const first = await findRecorded(db, key);
        if (first) return replayOf(first, key);
      }
      return refusal;
    }
  };

  const runOwningTransactions = async (h: BoundHandler, request: unknown, ctx: HandlerContext, key: OperationKey): Promise<RpcReply> => {
    let recorded: RpcReply | undefined;
    const finish = async (trx: Knex.Transaction, body: Record<string, unknown>) => {
      const reply = okReply(h, body);
      // The record is the handler's last statement: its COMMIT goes out with it, saving the round
      // trip that every lock the transaction holds (a number series, a partner's credit) waits on.
      // Inside a savepoint it cannot end the transaction, so it leaves the COMMIT to knex.
      const commit = !trx.parentTransaction;
      if (!(await recordReply(trx, key, reply, { commit }))) throw new AlreadyRecorded();
      recorded = reply;
    };
    const body = await h.run(request, { ...ctx, finish });
    return recorded ?? okReply(h, body);
  };

  const server = async (operation: string, payload: unknown, meta: RequestMeta): Promise<RpcReply> => {
    if (operation === pingOperation(def.name)) return { ok: true, status: 200, body: { message: 'pong', service: def.name } };
    const h = byName.get(operation);
    if (!h) return { ok: false, status: 503, code: 'service_unavailable', message: `${operation} is not available` };
    const reqLog = log.child({ request_id: meta.requestId, operation });
    const parsed = parseWith(h.operation.request, payload);
    if (!parsed.ok) return { ok: false, status: 400, code: 'validation_failed', message: parsed.message, errors: parsed.errors };
    if (!Number.isInteger(meta.orgId) || meta.orgId <= 0) {
      return { ok: false, status: 400, code: 'validation_failed', message: 'org_id is required' };
    }
    // A write's own transactions nest flat too (inTransaction); a read's pool is left as it is.
    const ctx: HandlerContext = { ...meta, db: h.operation.write ? flatDb : db, bus, log: reqLog, config, finish: noFinish };
    const key: OperationKey | undefined =
      h.operation.write && meta.operationKey
        ? {
            orgId: meta.orgId,
            key: meta.operationKey,
            operation,
            hash: requestHash(operation, payload),
            ttlHours: config.IDEMPOTENCY_TTL_HOURS,
          }
        : undefined;
    try {
      const reply = key ? await runRecorded(h, parsed.value, ctx, key) : await runPlain(h, parsed.value, ctx);
      return reply;
    } catch (err) {
      return failureReply(err, h.operation.write, reqLog, meta.requestId);
    }
  };
  await bus.serve(def.name, [...byName.keys(), pingOperation(def.name)], server);
  for (const sub of def.subscriptions ?? []) {
    await bus.subscribe(inboxSubscription(sub, db, log));
  }
  const tasks = [...(def.background?.({ ...deps, bus, relay }) ?? []), retentionTask(deps)];
  // Publishing starts once its own consumers are subscribed (events it sends itself reach them too).
  const begin = () => {
    relay.start();
    tasks.forEach((t) => t.start());
  };
  if (opts.begin !== 'later') begin();
  log.info({ operations: byName.size }, `${def.name} service started`);

  return {
    name: def.name,
    relay,
    begin,
    async stop() {
      await Promise.all(tasks.map((t) => t.stop()));
      await bus.stopConsuming();
      await relay.stop();
      observed.stop();
      log.info(`${def.name} service stopped`);
    },
  };
}

function errorReply(err: AppError): RpcReply {
  return {
    ok: false,
    status: err.status,
    code: err.code,
    message: err.message,
    errors: err.errors,
    ...(err.transient ? { transient: true } : {}),
  };
}

/** What a failed handler answers: its refusal, 503 for an outage or a conflict it could not settle, else 500 (a bug). */
function failureReply(err: unknown, write: boolean, log: Logger, requestId: string): RpcReply {
  if (err instanceof AppError) return errorReply(err);
  if (err instanceof AlreadyRecorded) {
    // A twin recorded its reply, but reading it back failed (the database blinked): try again.
    return {
      ok: false,
      status: 503,
      code: 'outcome_unknown',
      message: 'This request was already answered, but the answer could not be read back; retrying with the same Idempotency-Key is safe',
    };
  }
  if (isTransientConflict(err)) {
    log.warn({ err: (err as Error).message }, 'transaction kept conflicting');
    return {
      ok: false,
      status: 503,
      code: 'service_unavailable',
      message: 'The request kept conflicting with concurrent ones and did nothing; retry it',
    };
  }
  if (isDbUnavailable(err)) {
    log.warn({ err: (err as Error).message }, 'database unavailable');
    // A commit cut off by the outage may or may not have landed: a write's outcome is unknown.
    return write
      ? {
          ok: false,
          status: 503,
          code: 'outcome_unknown',
          message: 'The database became unavailable; the outcome is unknown. Retrying with the same Idempotency-Key is safe',
        }
      : { ok: false, status: 503, code: 'service_unavailable', message: 'The database is unavailable; retry later' };
  }
  log.error({ err }, 'handler failed');
  return { ok: false, status: 500, code: 'internal_error', message: `Internal error (request id ${requestId})` };
}

/** Purges expired outbox and inbox rows of the service's schema, and expired key records (idempotency.ts). */
function retentionTask({ db, log, config }: ServiceDeps): BackgroundTask {
  return periodicTask('retention', config.RETENTION_INTERVAL_MS, log, async (stopping) => {
    const removed = await purgeExpired(db, retentionWindows(config), undefined, stopping);
    if (Object.values(removed).some((n) => n > 0)) log.info({ removed }, 'expired rows purged');
  });
}
