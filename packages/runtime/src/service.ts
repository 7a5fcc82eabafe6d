import type { z } from 'zod';
import type { Operation, ReplyOf, RequestOf, RpcReply, ServiceName } from '@bo/contracts';
import { operationCost, parseWith, rpcTimeoutOf } from '@bo/contracts';
import type { Bus, RequestMeta } from './bus/types';
import { caller, type Call } from './call';
import { baseConfigSchema, type BaseConfig } from './config';
import { migrate, type Knex, type Migration } from './db';
import { runtimeMigrations } from './runtime-migrations';
import { FairTurns } from './fair-turns';
import { isDbUnavailable, isTransientConflict, retryTransientConflicts } from './db-errors';
import { AppError } from './errors';
import {
  AlreadyRecorded,
  claimKey,
  type ClaimRead,
  findRecorded,
  releaseClaim,
  holdKey,
  afterOwnStatement,
  isKeyInUse,
  KEY_IN_USE_REPLY,
  recordReply,
  replayOf,
  requestHash,
  type OperationKey,
  type RecordedReply,
} from './idempotency';
import { inboxSubscription, type InboxHandlerDef } from './inbox';
import { plainBody, type Serializable } from './json-text';
import type { Logger } from './logger';
import { observeService } from './observability/observe-service';
import { OutboxRelay } from './outbox';
import { NotAsDecided, storeAlone, type OneStatementWrite } from './one-statement';
import { inTransaction, withFlatTransactions } from './transaction';
import { periodicTask, type BackgroundTask } from './periodic';
import { purgeExpired, retentionWindows } from './retention';

/** Routing of events to the service's routed subscriptions (Subscription.routes, Bus.addRoutes). */
export type EventRoutes = Pick<Bus, 'addRoutes' | 'setRoutes'>;

interface ContextBase extends RequestMeta {
  log: Logger;
  config: BaseConfig;
  /**
   * The bus's routes, for a write that makes a routed subscription want more event types: it routes
   * them before its transaction commits (docs/webhooks.md).
   */
  routes: EventRoutes;
}

/**
 * What a read gets besides its validated request, and what a write's `gather` step gets: the
 * service's pool, with no transaction open, and calls to other services' operations.
 */
export interface HandlerContext extends ContextBase {
  db: Knex;
  /** Calls another service's operation (call.ts): typed from its contract, failures mapped one way. */
  call: Call;
}

/**
 * What a write runs with: the one transaction the runtime opens for it, which also holds its
 * operation key, takes its events (recordEvent, the outbox) and records its reply as its last
 * statement, carrying the COMMIT. A handler's own `ctx.db.transaction` runs in it, without a
 * savepoint unless one is needed (inTransaction). No calls to other services: nothing is asked
 * elsewhere while the transaction holds its locks and its connection.
 */
export interface ApplyContext extends ContextBase {
  db: Knex.Transaction;
}

/** What a read's handler, or a write's needing nothing outside its transaction, gets: see HandlerContext and ApplyContext. */
export type PlainContext<O extends Operation> = O['write'] extends false ? HandlerContext : ApplyContext;

/** A handler's reply, as it gives it (a top-level field may be JSON text PostgreSQL wrote). */
type HandlerReply<O extends Operation> = Promise<Serializable<ReplyOf<O>>>;

/**
 * A write that needs another service, in two steps:
 * - `gather` runs first, with no transaction open and no connection held while it waits: it asks
 *   other services (ctx.call) and reads what decides whether to write, and answers the facts the
 *   write needs. It may refuse (its refusal is recorded under the key like any other). It must be
 *   safe to run again: a retry whose key has no record yet (the first run failed, or a twin still
 *   runs) runs it again; a retry whose key is recorded is answered the record, and gather does not run.
 * - `apply` then runs in the runtime's transaction (ApplyContext) with those facts: it locks, checks
 *   again what may have changed meanwhile, and writes. Its reply is recorded in that transaction.
 * - `compensate`, for a gather that took a step elsewhere (a saga's), runs when apply's transaction
 *   failed for no refusal of its own (an outage, a bug; not a refusal, a twin's record, or a conflict
 *   the runtime retried away), after its rollback: it releases what gather took, and may throw the
 *   answer to give instead (an AppError); if it returns, the failure is answered as it is.
 */
export interface GatherApply<O extends Operation, F> {
  /** `claimed`: the rows of readWithClaim, on gather's first run of a request whose key was claimed; else undefined, and it reads. */
  gather: (request: RequestOf<O>, ctx: HandlerContext, claimed?: ClaimedRows) => Promise<F>;
  apply: (request: RequestOf<O>, ctx: ApplyContext, facts: F) => HandlerReply<O>;
  compensate?: (failure: unknown, request: RequestOf<O>, ctx: HandlerContext, facts: F) => Promise<void>;
  /**
   * The gather only reads: it asks other services' reads and this service's own tables (it may fill
   * a read model it keeps), and takes no step anywhere that a twin must not take too. Its key is
   * then held as a one-step write's is, by the transaction (holdKey, sent with BEGIN), not claimed by
   * a statement of its own before gather (claimKey). A replay then gathers again before the record's
   * insert finds the key and answers the record; no compensate goes with it.
   */
  readOnlyGather?: true;
  /**
   * A select of this service's own tables that gather starts with, run by the statement that claims
   * the key (claimKey) rather than as a statement of its own. Its rows come to gather as `claimed`
   * on its first run, when the key was claimed; a gather run again (its facts stale, a conflict
   * retried), or for a request with no key, reads for itself. The read takes no lock: whatever is
   * decided on it is checked again where it is stored.
   */
  readWithClaim?: (request: RequestOf<O>, ctx: HandlerContext) => ClaimRead;
  /**
   * The write as one statement after gather, as AloneOrApply's `alone` (decided on an unlocked read,
   * stored only while what it read still holds), with the facts gather answered; undefined, or what
   * it decided on gone by the store, and `apply` runs it the usual way. A failure of either that is
   * no refusal runs `compensate`, as a failed transaction of apply's does.
   */
  alone?: (request: RequestOf<O>, ctx: HandlerContext, facts: F) => Alone;
}

/**
 * A write whose reply carries a secret: the record under its key keeps the reply as `seal` makes it
 * (the secret encrypted), and a replay of the record answers it as `open` makes it again.
 */
export interface ReplySeal {
  seal(body: Record<string, unknown>, config: BaseConfig): Record<string, unknown>;
  open(body: Record<string, unknown>, config: BaseConfig): Record<string, unknown>;
}

export interface BoundHandler {
  operation: Operation;
  /** How the key's record keeps its reply, when that reply carries a secret. */
  seal?: ReplySeal;
  /** A write's step before its transaction; none for a handler needing nothing outside it. */
  gather?: (request: unknown, ctx: HandlerContext, claimed?: ClaimedRows) => Promise<unknown>;
  /** What the key's claim reads for gather (GatherApply.readWithClaim). */
  readWithClaim?: (request: unknown, ctx: HandlerContext) => ClaimRead;
  /** A read with the pool; a write in the runtime's transaction, with what `gather` answered. */
  run: (request: unknown, ctx: HandlerContext | ApplyContext, facts: unknown) => Promise<Record<string, unknown>>;
  /** After a write's transaction failed for no refusal: what gather took elsewhere is released. */
  compensate?: (failure: unknown, request: unknown, ctx: HandlerContext, facts: unknown) => Promise<void>;
  /** Its gather only reads: the key is held by the transaction, not claimed before gather (GatherApply.readOnlyGather). */
  readOnlyGather?: boolean;
  /** The write as one statement when it needs no lock to decide (AloneOrApply, GatherApply.alone), after gather; undefined: `run` it in a transaction. */
  alone?: (request: unknown, ctx: HandlerContext, facts: unknown) => Alone;
}

/** The rows a key's claim read for gather (GatherApply.readWithClaim), as node-postgres parsed them. */
export type ClaimedRows = ReadonlyArray<Record<string, unknown>>;

/** What `alone` answers: the write as one statement, or undefined to run it the usual way. */
type Alone = OneStatementWrite | undefined | Promise<OneStatementWrite | undefined>;

/**
 * A write that, as a rule, needs no lock to decide: `alone` decides it, in memory from the request
 * or from what it reads with no transaction (ctx.db, the pool), and answers it as one statement
 * (OneStatementWrite, one-statement.ts) whose `expects` says what must still hold of what it read;
 * or undefined when this request needs more after all (a refusal to judge under the locks, say).
 * `apply` then runs it in the runtime's transaction as any write runs, as it does when `expects`
 * did not hold. Both must answer the same for the same request and state.
 */
export interface AloneOrApply<O extends Operation> {
  alone: (request: RequestOf<O>, ctx: HandlerContext) => Alone;
  apply: (request: RequestOf<O>, ctx: ApplyContext) => HandlerReply<O>;
}

/**
 * Binds a handler to its operation; the request and reply types flow from the contract's zod
 * schemas. A top-level field of the reply may be given as the JSON text PostgreSQL wrote (JsonText).
 *
 * One function for a read (HandlerContext) or a write that needs nothing outside its transaction
 * (ApplyContext); `{ gather, apply }` for a write that asks another service first (GatherApply).
 * Either way the runtime owns a write's transaction, key, events, recorded reply and COMMIT.
 */
export function handler<O extends Operation>(
  operation: O,
  run: (request: RequestOf<O>, ctx: PlainContext<O>) => HandlerReply<O>,
): BoundHandler;
export function handler<O extends Operation & { write: true }, F>(operation: O, steps: GatherApply<O, F>): BoundHandler;
export function handler<O extends Operation & { write: true }>(operation: O, steps: AloneOrApply<O>): BoundHandler;
export function handler<O extends Operation, F>(
  operation: O,
  def: ((request: RequestOf<O>, ctx: PlainContext<O>) => HandlerReply<O>) | GatherApply<O, F> | AloneOrApply<O>,
): BoundHandler {
  type Run = BoundHandler['run'];
  if (typeof def === 'function') return { operation, run: def as unknown as Run };
  if (!operation.write) throw new Error(`${operation.name} is a read: it calls other services directly, with no gather step`);
  if (!('gather' in def)) return { operation, run: def.apply as unknown as Run, alone: def.alone as BoundHandler['alone'] };
  if (def.readOnlyGather && def.compensate) throw new Error(`${operation.name}: a gather that only reads has nothing to compensate`);
  if (def.readOnlyGather && def.readWithClaim) throw new Error(`${operation.name}: a gather that only reads claims no key to read with`);
  return {
    operation,
    gather: def.gather as BoundHandler['gather'],
    run: def.apply as unknown as Run,
    compensate: def.compensate as BoundHandler['compensate'],
    readOnlyGather: def.readOnlyGather === true,
    ...(def.readWithClaim ? { readWithClaim: def.readWithClaim as BoundHandler['readWithClaim'] } : {}),
    ...(def.alone ? { alone: def.alone as BoundHandler['alone'] } : {}),
  };
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
  const relay = new OutboxRelay(db, bus, log, config.OUTBOX_POLL_MS, config.OUTBOX_MARK_DELAY_MS);

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
  const flatDb = withFlatTransactions(db);
  /** The reply as the key's record keeps it, and a recorded reply as a replay answers it (ReplySeal). */
  const sealed = (h: BoundHandler, reply: RpcReply): RpcReply =>
    h.seal && reply.ok ? { ...reply, body: h.seal.seal(reply.body, config) } : reply;
  const replayed = (h: BoundHandler, record: RecordedReply, key: OperationKey): RpcReply => {
    const reply = replayOf(record, key);
    return h.seal && reply.ok ? { ...reply, body: h.seal.open(reply.body, config) } : reply;
  };

  /**
   * A write: its gather step (if any) with the pool, then its effect in the one transaction the
   * runtime opens, which records the reply as its last statement. Without a key (an internal call)
   * the transaction records nothing.
   *
   * With a key, the reply is recorded beside the effect, or answered from the record if it already
   * took effect here. A one-step write does not look the record up first: nearly every key is new,
   * and a key already recorded makes the record's insert find it, so the run rolls back and answers
   * the recorded reply, with nothing of it left (one statement and one pool checkout less per write).
   * Its transaction holds the key from its first statement (holdKey): a twin arriving while it runs
   * is answered 409 at once, instead of running the command only to roll it back at the record.
   *
   * A two-step write whose gather only reads (readOnlyGather) holds its key as a one-step write does.
   * Any other takes its key before its first step (claimKey: a row in progress, committed on
   * its own), since its gather acts elsewhere (asks a service, takes a step of a saga): a twin, or
   * another request with the key, arriving while it runs is answered 409 and does nothing, and one
   * arriving after it is answered its record. Its reply replaces the row in the transaction of its
   * effect; a failure that records nothing gives the key back (releaseClaim), and a process that dies
   * leaves it held until its lease (twice the gateway's wait for it, rpcTimeoutOf) is over.
   */
  const runWrite = async (
    h: BoundHandler,
    request: unknown,
    ctx: HandlerContext,
    scope: RequestScope,
    key: OperationKey | undefined,
  ): Promise<RpcReply> => {
    let claim: string | undefined;
    // What the claim read for gather: given to its first run only, since a run again must read afresh.
    let claimed: ClaimedRows | undefined;
    if (key && h.gather && !h.readOnlyGather) {
      const taken = await claimKey(db, key, 2 * rpcTimeoutOf(h.operation, config.RPC_TIMEOUT_MS), h.readWithClaim?.(request, ctx));
      if ('held' in taken) return replayed(h, taken.held, key);
      claim = taken.token;
      claimed = taken.read;
    }
    try {
      // Facts gathered outside the transaction may go stale before it runs (AppError.asStale): gather again, twice at most.
      for (let attempt = 1; ; attempt++) {
        try {
          return await gatherAndApply();
        } catch (err) {
          if (attempt < 3 && err instanceof AppError && err.stale) continue;
          throw err;
        }
      }
      async function gatherAndApply(): Promise<RpcReply> {
        const facts = h.gather
          ? await retryTransientConflicts(() => {
              const read = claimed;
              claimed = undefined;
              return h.gather!(request, ctx, read);
            })
          : undefined;
        try {
          return await aloneOrApply(facts);
        } catch (err) {
          if (h.compensate && !settled(err)) await h.compensate(err, request, ctx, facts);
          throw err;
        }
      }
      async function aloneOrApply(facts: unknown): Promise<RpcReply> {
        const alone = await h.alone?.(request, ctx, facts);
        if (alone) {
          // Checked once the statement filled in what it makes (FILLED_IN).
          const reply: RpcReply = { ok: true, status: 200, body: alone.reply };
          try {
            const answered = await retryTransientConflicts(() =>
              storeAlone(db, alone, key && { key, reply: sealed(h, reply), claim }, reply),
            );
            alone.afterCommit?.();
            return okReply(h, (answered as Extract<RpcReply, { ok: true }>).body);
          } catch (err) {
            // What it decided on was not there (a row gone): the usual way finds out what to answer.
            if (!(err instanceof NotAsDecided)) throw err;
          }
        }
        const locked = () =>
          retryTransientConflicts(() =>
            inTransaction(db, async (trx) => {
              if (key && claim === undefined) await holdKey(trx, key);
              const reply = okReply(h, await h.run(request, applyContext(scope, trx), facts));
              // The record is the transaction's last statement: its COMMIT goes out with it, saving the
              // round trip that every lock the transaction holds (a number series, a partner's credit) waits on.
              if (key && !(await recordReply(trx, key, sealed(h, reply), { commit: true, claim }))) throw new AlreadyRecorded();
              return reply;
            }),
          );
        // After its own statement held the key and failed, the key may look held for a moment longer.
        return alone && key && claim === undefined ? await afterOwnStatement(locked) : await locked();
      }
    } catch (err) {
      if (!key) throw err;
      // A claimed write's own row is in progress until it ends: only a record it could not write means a twin's.
      if (claim === undefined || err instanceof AlreadyRecorded) {
        const twin = await findRecorded(db, key).catch(() => undefined);
        if (twin) return replayed(h, twin, key);
        if (isKeyInUse(err)) return KEY_IN_USE_REPLY;
      }
      if (!(err instanceof AppError) || err.status >= 500 || err.transient) {
        // Nothing to record: the key is given back, so a retry runs afresh.
        if (claim !== undefined) await releaseClaim(db, key, claim).catch(() => undefined);
        if (err instanceof AppError && err.transient) return errorReply(err);
        throw err;
      }
      // A refusal is recorded too, so the key answers the same way however often it is retried.
      const refusal = errorReply(err);
      const recorded = await recordReply(db, key, refusal, { claim }).catch(() => true);
      if (!recorded) {
        const first = await findRecorded(db, key);
        if (first) return replayed(h, first, key);
      }
      return refusal;
    }
  };

  // The requests that reached this instance run RPC_CONCURRENCY at a time, by organization in turn, weighted by cost.
  const turns = new FairTurns(config.RPC_CONCURRENCY);
  const server = async (operation: string, payload: unknown, meta: RequestMeta): Promise<RpcReply> => {
    if (operation === pingOperation(def.name)) return { ok: true, status: 200, body: { message: 'pong', service: def.name } };
    const h = byName.get(operation);
    if (!h) return { ok: false, status: 503, code: 'service_unavailable', message: `${operation} is not available` };
    return turns.run(meta.orgId, operationCost(h.operation), meta.deadline, () => handle(h, operation, payload, meta), expiredReply);
  };

  const handle = async (h: BoundHandler, operation: string, payload: unknown, meta: RequestMeta): Promise<RpcReply> => {
    // The request's logger and calls are made on first use (RequestScope): most requests log nothing.
    let child: Logger | undefined;
    const reqLog = () => (child ??= log.child({ request_id: meta.requestId, operation }));
    const scope: RequestScope = { fields: { ...meta, config, routes: bus }, log: reqLog };
    const parsed = parseWith(h.operation.request, payload);
    if (!parsed.ok) return { ok: false, status: 400, code: 'validation_failed', message: parsed.message, errors: parsed.errors };
    if (!Number.isInteger(meta.orgId) || meta.orgId <= 0) {
      return { ok: false, status: 400, code: 'validation_failed', message: 'org_id is required' };
    }
    // A gather step's own transactions (a saga's step) nest flat too (inTransaction); a read's pool is left as it is.
    const ctx = handlerContext(scope, h.operation.write ? flatDb : db, () => caller(bus, config, meta));
    try {
      if (!h.operation.write) return okReply(h, await h.run(parsed.value, ctx, undefined));
      const key: OperationKey | undefined = meta.operationKey
        ? {
            orgId: meta.orgId,
            key: meta.operationKey,
            operation,
            hash: requestHash(operation, payload),
            ttlHours: config.IDEMPOTENCY_TTL_HOURS,
          }
        : undefined;
      return await runWrite(h, parsed.value, ctx, scope, key);
    } catch (err) {
      return failureReply(err, h.operation.write, reqLog(), meta.requestId);
    }
  };
  await bus.serve(def.name, [...byName.keys(), pingOperation(def.name)], server);
  for (const sub of def.subscriptions ?? []) {
    // A routed one starts with its routes as they stand, before anything of this process publishes.
    const routes = sub.routes ? await sub.routes(db) : undefined;
    await bus.subscribe({ ...inboxSubscription(sub, db, log), ...(routes ? { routes } : {}) });
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

/** The answer to a request whose caller stopped waiting before its turn came: it was not run, and nobody reads this. */
function expiredReply(): RpcReply {
  return { ok: false, status: 504, code: 'timeout', message: 'The request waited past its deadline and was not run' };
}

/** A write's transaction that ended for a reason of its own: a refusal, a twin's record, a conflict. */
function settled(err: unknown): boolean {
  return err instanceof AppError || err instanceof AlreadyRecorded || isKeyInUse(err) || isTransientConflict(err);
}

/**
 * What a request's contexts are made of: its fields, and its logger (a pino child naming the
 * request), made when first read: a child serializes its bindings when it is made, and most
 * requests never log. The contexts are object literals, getters included, which V8 keeps in its
 * fast shape (a context copied property by property with its descriptors costs more than the
 * logger it spares).
 */
interface RequestScope {
  fields: Omit<ContextBase, 'log'>;
  log: () => Logger;
}

/** A read's or a gather step's context: `call` too is made when first read. */
function handlerContext(scope: RequestScope, db: Knex, call: () => Call): HandlerContext {
  let made: Call | undefined;
  return {
    ...scope.fields,
    db,
    get log() {
      return scope.log();
    },
    get call() {
      return (made ??= call());
    },
  };
}

/** The transaction's view of a write's context: no calls to other services from inside it. */
function applyContext(scope: RequestScope, trx: Knex.Transaction): ApplyContext {
  return {
    ...scope.fields,
    db: trx,
    get log() {
      return scope.log();
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
