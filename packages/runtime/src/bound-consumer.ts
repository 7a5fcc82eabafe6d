import type { ConsumerDef, EventDef, EventEnvelope, EventOf } from '@bo/contracts';
import type { z } from 'zod';
import type { Knex, SqlStatement } from './db';
import type { InboxHandlerDef, PlannedStore } from './inbox';
import type { Logger } from './logger';
import type { TraceContext } from './observability/tracing';

/**
 * An event as the consumer receives it: its data parsed by the event's schema, or, where the
 * consumer reads only some fields (`reads`), by that narrower schema.
 */
export type Received<E extends EventDef, R extends z.ZodType | undefined> = R extends z.ZodType
  ? E extends EventDef<z.ZodType, infer T>
    ? Omit<EventEnvelope, 'type' | 'data'> & { type: T; data: z.output<R> }
    : never
  : EventOf<E>;

/** Per event type the consumer's contract takes, its effect on one event of that type. */
export type EventHandlers<E extends EventDef, R extends z.ZodType | undefined = undefined> = {
  [K in E as K['type']]: (trx: Knex.Transaction, event: Received<K, R>, log: Logger) => Promise<void>;
};

interface BindingOptions {
  /**
   * An event whose data its contract does not take: `retry` (the default) fails it, so the broker
   * retries it and at last dead-letters it, for an effect on money or stock that must not be lost;
   * `skip` logs it and applies nothing, for a read model that a later version of the record puts
   * right and that must not stall behind one bad event.
   */
  malformed?: 'retry' | 'skip';
  /** A routed consumer's first routes (InboxHandlerDef.routes). */
  routes?: (db: Knex) => Promise<readonly string[]>;
}

/**
 * The effect of a consumer bound to its contract, given one way: per event (`on`), per batch
 * (`batch`), or as one statement per batch (`statement`, or `forward` for events left unread);
 * InboxHandlerDef says what each costs.
 */
export interface ConsumerEffect<E extends EventDef, R extends z.ZodType | undefined = undefined> extends BindingOptions {
  on?: EventHandlers<E, R>;
  batch?: (trx: Knex.Transaction, events: Array<Received<E, R>>, log: Logger) => Promise<void>;
  statement?: (events: Array<Received<E, R>>, log: Logger, traces: ReadonlyArray<TraceContext | undefined>) => SqlStatement | undefined;
  /**
   * Every event as it was published, its data unread: a consumer that forwards events whatever
   * their type (webhooks), whose data is the publisher's contract and not its own.
   */
  forward?: (events: EventEnvelope[], log: Logger, traces: ReadonlyArray<TraceContext | undefined>) => SqlStatement | undefined;
  /**
   * Load → decide → store, a statement each (InboxHandlerDef `load` and `store`): `load` reads the
   * batch's state as one row, `store` decides on it for the events not applied before and answers
   * the writes, or `in transaction` to leave the batch to `batch`, its one other way then.
   */
  plan?: {
    load(events: Array<Received<E, R>>): SqlStatement;
    store(events: Array<Received<E, R>>, loaded: Record<string, unknown>, log: Logger): PlannedStore | 'in transaction';
  };
  /** After `statement` or `forward` committed, with the number of rows its effect wrote and the batch's logger. */
  applied?: (rowCount: number, log: Logger) => void;
}

/** A consumer's contract, to bind to its effect. */
export interface ConsumerBinding<E extends EventDef> {
  /** Each event with its data parsed by the event's schema. */
  to(effect: ConsumerEffect<E>): InboxHandlerDef;
  /**
   * Each event with its data parsed by `reads`, what the consumer reads of every event it takes when
   * that is less than the event's contract: a read model keeps a few fields, so a record with fields
   * added later, or older than some, still applies.
   */
  reading<R extends z.ZodType>(reads: R, effect: ConsumerEffect<E, R>): InboxHandlerDef;
}

/**
 * A consumer bound to its contract (packages/contracts consumers.ts): its name and the event types
 * its queue is bound by come from the contract, written once, and each event reaches the effect with
 * its literal type and its data parsed (`bindConsumer(consumer.catalogDocuments).to({ batch })`).
 */
export function bindConsumer<E extends EventDef>(contract: ConsumerDef<E>): ConsumerBinding<E> {
  return {
    to: (effect) => bind(contract, undefined, effect),
    reading: (reads, effect) => bind(contract, reads, effect),
  };
}

function bind<E extends EventDef, R extends z.ZodType | undefined>(
  contract: ConsumerDef<E>,
  reads: R,
  effect: ConsumerEffect<E, R>,
): InboxHandlerDef {
  const schemas = new Map<string, z.ZodType>(contract.takes.map((e) => [e.type, reads ?? e.data]));
  type Event = Received<E, R>;
  const parse = (event: EventEnvelope, log: Logger): Event | undefined => {
    const parsed = schemas.get(event.type)?.safeParse(event.data);
    if (parsed?.success) return { ...event, data: parsed.data } as Event;
    const issues = parsed?.error.issues ?? `${event.type} is not among the events it takes`;
    if (effect.malformed === 'skip') {
      log.error({ event_id: event.id, type: event.type, issues }, 'event its contract does not take; ignored');
      return undefined;
    }
    throw new Error(`${contract.name}: event ${event.id} (${event.type}) is not as its contract says: ${JSON.stringify(issues)}`);
  };
  const parsedAll = (events: EventEnvelope[], log: Logger) =>
    events.flatMap((event) => {
      const parsed = parse(event, log);
      return parsed ? [parsed] : [];
    });
  const ways = [effect.on, effect.plan ? undefined : effect.batch, effect.statement, effect.forward, effect.plan].filter(
    (w) => w !== undefined,
  ).length;
  if (ways !== 1) throw new Error(`${contract.name}: give its effect one way (on, batch, statement, forward or plan), not ${ways}`);
  const base = { name: contract.name, events: contract.events, ...(effect.routes ? { routes: effect.routes } : {}) };
  const { plan } = effect;
  if (plan) {
    const batch = effect.batch;
    return {
      ...base,
      load: (events, log) => plan.load(parsedAll(events, log)),
      store: (events, loaded, log) => plan.store(parsedAll(events, log), loaded, log),
      ...(batch
        ? {
            async handleBatch(trx: Knex.Transaction, events: EventEnvelope[], log: Logger) {
              const parsed = parsedAll(events, log);
              if (parsed.length) await batch(trx, parsed, log);
            },
          }
        : {}),
    };
  }
  if (effect.on) {
    const on = effect.on as unknown as Record<string, (trx: Knex.Transaction, event: Event, log: Logger) => Promise<void>>;
    return {
      ...base,
      async handle(trx, event, log) {
        const parsed = parse(event, log);
        if (parsed) await on[event.type]!(trx, parsed, log);
      },
    };
  }
  const { batch, statement, forward } = effect;
  if (batch) {
    return {
      ...base,
      async handleBatch(trx, events, log) {
        const parsed = parsedAll(events, log);
        if (parsed.length) await batch(trx, parsed, log);
      },
    };
  }
  const applied = effect.applied ? { applied: effect.applied } : {};
  if (forward) return { ...base, statement: (events, log, traces) => forward(events, log, traces), ...applied };
  return {
    ...base,
    statement(events, log, traces) {
      // Traces stay by position: an event left out (skipped) takes its trace with it.
      const kept = events.map((event) => parse(event, log));
      return statement!(
        kept.filter((e): e is Event => e !== undefined),
        log,
        traces.filter((_t, i) => kept[i] !== undefined),
      );
    },
    ...applied,
  };
}
