import type { z } from 'zod';
import type { Operation, ReplyOf, RequestOf, RpcReply, ServiceName } from '@bo/contracts';
import { parseWith } from '@bo/contracts';
import type { Bus, RequestMeta } from './bus/types';
import { baseConfigSchema, type BaseConfig } from './config';
import { migrate, type Knex, type Migration } from './db';
import { runtimeMigrations } from './runtime-migrations';
import { AppError } from './errors';
import { inboxSubscription, type InboxHandlerDef } from './inbox';
import type { Logger } from './logger';
import { OutboxRelay } from './outbox';

/** What a handler gets besides its validated request. */
export interface HandlerContext extends RequestMeta {
  db: Knex;
  bus: Bus;
  log: Logger;
  config: BaseConfig;
}

export interface BoundHandler {
  operation: Operation;
  run(request: unknown, ctx: HandlerContext): Promise<Record<string, unknown>>;
}

/** Binds a handler to its operation; the request type flows from the contract's zod schema. */
export function handler<O extends Operation>(operation: O, run: (request: RequestOf<O>, ctx: HandlerContext) => Promise<ReplyOf<O>>): BoundHandler {
  return { operation, run: run as BoundHandler['run'] };
}

export interface ServiceDeps {
  db: Knex;
  bus: Bus;
  log: Logger;
  config: BaseConfig;
}

export interface BackgroundTask {
  start(): void;
  stop(): Promise<void>;
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

export async function startService(def: ServiceDefinition, deps: ServiceDeps): Promise<RunningService> {
  const { db, bus, log, config } = deps;
  const applied = await migrate(db, def.name, [...runtimeMigrations, ...def.migrations]);
  if (applied.length) log.info({ migrations: applied }, 'migrations applied');
  const relay = new OutboxRelay(db, bus, log, config.OUTBOX_POLL_MS);
  relay.start();

  const byName = new Map(def.handlers.map((h) => [h.operation.name, h]));
  // Under test every reply is checked against its contract, so a handler cannot drift from it unseen.
  const checkReplies = process.env.NODE_ENV === 'test';
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
    try {
      const body = await h.run(parsed.value, { ...meta, db, bus, log: reqLog, config });
      if (h.operation.write) relay.kick();
      if (checkReplies) {
        const checked = parseWith(h.operation.reply, body);
        if (!checked.ok) {
          reqLog.error({ errors: checked.errors }, 'reply does not match its contract');
          return { ok: false, status: 500, code: 'internal_error', message: `Reply of ${operation} does not match its contract: ${checked.message}` };
        }
      }
      return { ok: true, status: 200, body };
    } catch (err) {
      if (err instanceof AppError) return { ok: false, status: err.status, code: err.code, message: err.message, errors: err.errors };
      reqLog.error({ err }, 'handler failed');
      return { ok: false, status: 500, code: 'internal_error', message: `Internal error (request id ${meta.requestId})` };
    }
  };
  await bus.serve(def.name, [...byName.keys(), pingOperation(def.name)], server);
  for (const sub of def.subscriptions ?? []) {
    await bus.subscribe(inboxSubscription(sub, db, log, () => relay.kick()));
  }
  const tasks = def.background?.({ ...deps, relay }) ?? [];
  tasks.forEach((t) => t.start());
  log.info({ operations: byName.size }, `${def.name} service started`);

  return {
    name: def.name,
    relay,
    async stop() {
      await Promise.all(tasks.map((t) => t.stop()));
      await bus.stopConsuming();
      await relay.stop();
      log.info(`${def.name} service stopped`);
    },
  };
}
