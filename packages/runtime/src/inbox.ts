import type { EventEnvelope } from '@bo/contracts';
import type { DeliveryStore, PendingDelivery, Subscription } from './bus/types';
import type { Knex, Migration, SqlStatement } from './db';
import type { Logger } from './logger';
import { Batched } from './batched';
import { retryTransientConflicts } from './db-errors';
import { currentTraceContext, type TraceContext } from './observability/tracing';
import { inTransaction } from './transaction';
import { outboxInsertFrom, publishStatementEvents, ridingMarks, statementEvents } from './outbox';
import type { StatementEvent } from './one-statement';

/**
 * An event consumer of a service: its effect per event (`handle`), per batch (`handleBatch`) for a
 * consumer that can apply many events in a few set-based statements instead of a few each, or as one
 * statement per batch (`statement`) for an effect that applying twice leaves as applying once.
 */
export type InboxHandlerDef = {
  /** Durable consumer name, e.g. `partners.ledger`; also the inbox's consumer key. */
  name: string;
  events: readonly string[];
  /**
   * Makes the consumer routed (Subscription.routes): of `events`, it gets only the types routed to
   * it, starting with those this answers when the service subscribes; the service routes more with
   * `ctx.routes.addRoutes` and sets them with `setRoutes`.
   */
  routes?: (db: Knex) => Promise<readonly string[]>;
} & (
  | {
      /** Applies the event's effect inside the transaction that records it as processed. */
      handle(trx: Knex.Transaction, event: EventEnvelope, log: Logger): Promise<void>;
      handleBatch?: never;
      statement?: never;
      load?: never;
    }
  | {
      /**
       * Applies the effects of events not applied before (at least one, in delivery order, ids
       * distinct) inside the transaction that records them as processed: the same end state as
       * applying them one by one in that order.
       */
      handleBatch(trx: Knex.Transaction, events: EventEnvelope[], log: Logger): Promise<void>;
      handle?: never;
      statement?: never;
      load?: never;
    }
  | {
      /**
       * Load → decide → store, one statement each way and no transaction: the state the batch's
       * decision needs as one read of one row (`load`, given every event of the batch, in delivery
       * order; the runtime adds which of them the inbox holds already), then `store`, given the events
       * not applied before (at least one, in delivery order, ids distinct) and that row, decides and
       * answers the writes (PlannedStore), which run with the inbox rows of those events as one
       * statement. Each write states how many rows it must affect: should another instance or
       * another write have changed what the load saw (a row the plan updates, a natural key it
       * inserts, an event's inbox row), a count differs, the statement fails whole and the batch is
       * loaded and decided again. `store` answers `in transaction` for a batch it will not plan (an
       * effect whose state one statement cannot hold still): `handleBatch` then applies the batch
       * in the inbox transaction.
       */
      load(events: EventEnvelope[], log: Logger): SqlStatement;
      store(events: EventEnvelope[], loaded: Record<string, unknown>, log: Logger): PlannedStore | 'in transaction';
      handleBatch?(trx: Knex.Transaction, events: EventEnvelope[], log: Logger): Promise<void>;
      handle?: never;
      statement?: never;
    }
  | {
      /**
       * The effect of a batch (in delivery order, ids distinct) as one INSERT, UPDATE or DELETE, not
       * starting with WITH, or undefined when it has none. It is given the batch's events applied
       * before too, so running it again for an event must leave what running it once did (as an
       * upsert keeping the newest version does). It runs with the batch's inbox rows as one statement,
       * so one round trip commits both, with no BEGIN or COMMIT: a read model fed by every write of
       * another service pays the least per event. It runs in the trace of the batch's first event;
       * `traces[i]` is the one `events[i]` arrived in, for an effect that keeps each event's own.
       */
      statement(events: EventEnvelope[], log: Logger, traces: ReadonlyArray<TraceContext | undefined>): SqlStatement | undefined;
      /** Called once the statement committed, with the number of rows its effect wrote and the batch's logger. */
      applied?(rowCount: number, log: Logger): void;
      handle?: never;
      handleBatch?: never;
      load?: never;
    }
);

/**
 * A consumer's store (InboxHandlerDef `store`): its writes, each an INSERT, UPDATE or DELETE with a
 * RETURNING clause that must return exactly `rows` rows, run as data-modifying CTEs of one statement
 * with the batch's inbox rows. Writes of one statement see one snapshot: none reads what another writes.
 */
export interface PlannedStore {
  writes: ReadonlyArray<SqlStatement & { rows: number }>;
  /** Events the batch announces: their outbox rows are written by the same statement, and published once it committed. */
  events?: ReadonlyArray<StatementEvent>;
  /** Called once the statement committed. */
  stored?(): void;
}

/**
 * The function that fails a planned store whose counts differ from its plan (asPlannedCheckMigration),
 * with SQLSTATE 40001: a serialization failure, which runs the batch again from its load.
 */
export const AS_PLANNED_CHECK = 'require_as_planned';

/**
 * The migration a service whose consumers store as planned (InboxHandlerDef `load`) runs once,
 * under the name and number of its own list: it makes AS_PLANNED_CHECK in the service's schema.
 */
export function asPlannedCheckMigration(name: string): Migration {
  return {
    name,
    async up(trx, schema) {
      await trx.raw(
        `create function ??.${AS_PLANNED_CHECK}(as_planned boolean) returns boolean language plpgsql as $$
         begin
           if not as_planned then
             raise exception 'what a consumer decided on changed before its store' using errcode = '40001';
           end if;
           return as_planned;
         end $$`,
        [schema],
      );
    },
  };
}

/**
 * Wraps a handler so each event id takes effect once: the inbox row and the effect commit together,
 * and a redelivered event finds its row and does nothing. Its deliveries not yet handled are kept in
 * the same schema for the in-process bus (see deliveryStore).
 *
 * Events that arrive while a transaction of this consumer is running wait for it and then go
 * together into the next one (one BEGIN, one inbox insert, one COMMIT for all of them): under load a
 * consumer pays the transaction once per batch instead of once per event, and a quiet one still
 * applies each event at once. Should any event of a batch fail, the batch rolls back and each runs
 * again alone, so only the failing one is retried; each event's delivery settles when its own
 * effect committed.
 */
export function inboxSubscription(def: InboxHandlerDef, db: Knex, log: Logger): Subscription {
  const batches = new InboxBatches(def, db, log);
  return {
    name: def.name,
    events: def.events,
    store: deliveryStore(db, def.name),
    handler: (event) => batches.apply(event),
  };
}

/**
 * Applies one batch as the consumer's inbox applies it (its statements, the inbox rows, a conflict
 * run again), on `db`, a pool or a transaction: for tests that hold one instance's work open while
 * another applies its own.
 */
export async function applyInboxBatch(def: InboxHandlerDef, db: Knex, events: EventEnvelope[], log: Logger): Promise<void> {
  const batches = new InboxBatches(def, db, log);
  await retryTransientConflicts(() => batches.applyAll(events));
}

/** The most events one transaction applies (the RabbitMQ consumer has at most its prefetch unacked). */
const MAX_BATCH = 64;

/** Events applied together in one transaction; each answers its own failure, or undefined. */
class InboxBatches {
  private readonly batches = new Batched<EventEnvelope, unknown>((events) => this.run(events), MAX_BATCH);
  /** The trace each event arrived in (its consume span): a batch runs in its first event's only. */
  private readonly traces = new WeakMap<EventEnvelope, TraceContext | undefined>();

  constructor(
    private readonly def: InboxHandlerDef,
    private readonly db: Knex,
    private readonly log: Logger,
  ) {}

  /** Resolves once the event took effect (or was found applied already); rejects if its effect failed. */
  async apply(event: EventEnvelope): Promise<void> {
    this.traces.set(event, currentTraceContext());
    const failure = await this.batches.run(event);
    if (failure !== undefined) throw failure as Error;
  }

  private async run(events: EventEnvelope[]): Promise<unknown[]> {
    // A deadlock or serialization failure (a batch locks the rows of several events, in event order)
    // runs the transaction again at once rather than through the broker's retry delay.
    if (events.length > 1) {
      try {
        await retryTransientConflicts(() => this.applyAll(events));
        return events.map(() => undefined);
      } catch {
        // Rolled back whole: each on its own, so the others still take effect.
      }
    }
    const failures: unknown[] = [];
    for (const event of events) {
      try {
        await retryTransientConflicts(() => this.applyAll([event]));
        failures.push(undefined);
      } catch (err) {
        failures.push(err ?? new Error('event handler failed'));
      }
    }
    return failures;
  }

  /** The inbox rows of all and the effect of each one not applied before, in order, committed together. */
  async applyAll(events: EventEnvelope[]): Promise<void> {
    const { def } = this;
    if (def.load) {
      await this.applyPlanned(def, events);
      return;
    }
    const { pending, recorded } = this.inboxRows(events);
    if (def.statement) {
      const log = this.log.child({ consumer: def.name });
      const effect = def.statement(
        events,
        log,
        events.map((e) => this.traces.get(e)),
      );
      if (effect && /^\s*with\b/i.test(effect.sql)) throw new Error(`${def.name}: a consumer's statement may not start with WITH`);
      const result: unknown = await this.db.raw(
        effect ? `with ${pending.sql}, recorded as (${recorded.sql}) ${effect.sql}` : `with ${pending.sql} ${recorded.sql}`,
        [...pending.bindings, ...recorded.bindings, ...(effect?.bindings ?? [])],
      );
      if (effect && def.applied) def.applied((result as { rowCount: number | null }).rowCount ?? 0, log);
      return;
    }
    await this.inTransaction(events, async (trx, fresh) => {
      if (def.handleBatch) await def.handleBatch(trx, fresh, this.log.child({ consumer: def.name }));
      else for (const event of fresh) await def.handle(trx, event, this.eventLog(event));
    });
  }

  private eventLog(event: EventEnvelope): Logger {
    return this.log.child({ consumer: this.def.name, event_id: event.id, type: event.type });
  }

  /** The inbox rows of all and `apply` of those not applied before (if any), in order, in one transaction. */
  private async inTransaction(events: EventEnvelope[], apply: (trx: Knex.Transaction, fresh: EventEnvelope[]) => Promise<void>) {
    const { pending, recorded } = this.inboxRows(events);
    // Events the effects record go out once this commits (recordEvent); nothing else is owed here.
    await inTransaction(this.db, async (trx) => {
      const inserted: unknown = await trx.raw(`with ${pending.sql} ${recorded.sql} returning event_id`, [
        ...pending.bindings,
        ...recorded.bindings,
      ]);
      const freshIds = new Set((inserted as { rows: Array<{ event_id: string }> }).rows.map((r) => r.event_id));
      // A twin delivered in the same batch finds the id taken by the first.
      const fresh = events.filter((event) => {
        if (freshIds.delete(event.id)) return true;
        this.eventLog(event).info('duplicate event ignored');
        return false;
      });
      if (fresh.length) await apply(trx, fresh);
    });
  }

  /**
   * Load → decide → store (InboxHandlerDef `load`): one read of the consumer's state and of the
   * events the inbox holds, then one statement for the events' inbox rows and the consumer's writes,
   * each held to its count by AS_PLANNED_CHECK; a batch its consumer will not plan runs in the inbox
   * transaction instead.
   */
  private async applyPlanned(def: Extract<InboxHandlerDef, { load: unknown }>, events: EventEnvelope[]): Promise<void> {
    const ids = events.map((e) => e.id);
    const log = this.log.child({ consumer: def.name });
    const load = def.load(events, log);
    const result: unknown = await this.db.raw(
      `select l.*, array(select i.event_id::text from inbox i where i.consumer = ? and i.event_id = any(?::uuid[])) as inbox_held
         from (${load.sql}) as l`,
      [def.name, ids, ...load.bindings],
    );
    const rows = (result as { rows: Array<Record<string, unknown> & { inbox_held: string[] }> }).rows;
    if (rows.length !== 1) throw new Error(`${def.name}: its load answered ${rows.length} rows, not one`);
    const { inbox_held: held, ...loaded } = rows[0]!;
    const seen = new Set(held);
    const fresh = events.filter((event) => {
      if (!seen.has(event.id)) {
        seen.add(event.id);
        return true;
      }
      this.log.child({ consumer: def.name, event_id: event.id, type: event.type }).info('duplicate event ignored');
      return false;
    });
    const pending = this.inboxRows(events).pending;
    if (!fresh.length) {
      await this.db.raw(`with ${pending.sql} select 1`, pending.bindings);
      return;
    }
    const store = def.store(fresh, loaded, log);
    if (store === 'in transaction') {
      if (!def.handleBatch) throw new Error(`${def.name}: a batch left to a transaction needs handleBatch`);
      const handleBatch = def.handleBatch.bind(def);
      await this.inTransaction(events, (trx, batch) => handleBatch(trx, batch, log));
      return;
    }
    const { recorded } = this.inboxRows(fresh);
    const writes = store.writes.map((w, i) => ({ ...w, name: `planned${i + 1}` }));
    const counts = [`(select count(*) from recorded) = ?`, ...writes.map((w) => `(select count(*) from ${w.name}) = ?`)];
    const announced = statementEvents(store.events ?? []);
    const outbox = announced.rows.length ? outboxInsertFrom('?', [JSON.stringify(announced.rows)]) : undefined;
    // Marks of this service's events published earlier ride along (outbox.ts, ridingMarks).
    const marks = ridingMarks(this.db);
    try {
      await this.db.raw(
        `with ${pending.sql}, recorded as (${recorded.sql} returning 1)${writes.map((w) => `, ${w.name} as (${w.sql})`).join('')}
         ${outbox ? `, announced as (${outbox.sql})` : ''}${marks ? `, ${marks.cte.sql}` : ''}
         select ${AS_PLANNED_CHECK}(${counts.join(' and ')})`,
        [
          ...pending.bindings,
          ...recorded.bindings,
          ...writes.flatMap((w) => w.bindings),
          ...(outbox?.bindings ?? []),
          ...(marks?.cte.bindings ?? []),
          fresh.length,
          ...writes.map((w) => w.rows),
        ],
      );
    } catch (err) {
      marks?.giveBack();
      throw err;
    }
    marks?.kept();
    publishStatementEvents(this.db, announced.envelopes, announced.trace);
    store.stored?.();
  }

  /**
   * The inbox rows of the events (`recorded`: those recorded before are left as they are), and, as a
   * CTE named `pending`, the removal of the in-process bus's pending deliveries of them, which so
   * leave with their effect (deliveryStore.done).
   */
  private inboxRows(events: EventEnvelope[]): { pending: SqlStatement; recorded: SqlStatement } {
    const ids = events.map((e) => e.id);
    return {
      pending: {
        sql: 'pending as (delete from event_deliveries where consumer = ? and event_id = any(?::uuid[]))',
        bindings: [this.def.name, ids],
      },
      recorded: {
        sql: `insert into inbox (consumer, event_id, type) select ?, e.id, e.type from unnest(?::uuid[], ?::text[]) as e(id, type)
              on conflict (consumer, event_id) do nothing`,
        bindings: [this.def.name, ids, events.map((e) => e.type)],
      },
    };
  }
}

/**
 * A consumer's deliveries not yet handled, in its service's schema (migration 003), for the
 * in-process bus, which holds nothing itself: a row in `event_deliveries` from the moment the bus
 * accepts an event (before the outbox forgets it) until its handler succeeded, carrying the next
 * attempt and when it is due; a row in `event_dead_letters` for each event given up after
 * EVENT_MAX_ATTEMPTS. The next start reads the pending rows and delivers them at their due time.
 * A row leaves in the transaction of the event's effect (the inbox insert deletes it), so it is
 * gone exactly when the effect committed.
 */
export function deliveryStore(db: Knex, consumer: string): DeliveryStore {
  const pending = () => db('event_deliveries').where({ consumer });
  // Events published while an insert runs are stored together by the next one.
  const adds = new Batched<EventEnvelope, boolean>(async (events) => {
    const result: unknown = await db.raw(
      `insert into event_deliveries (consumer, event_id, type, envelope, attempt, due_at)
       select ?, e.id, e.type, e.envelope, 1, ? from jsonb_to_recordset(?::jsonb) as e(id uuid, type text, envelope jsonb)
       on conflict (consumer, event_id) do nothing returning event_id`,
      [consumer, new Date(), JSON.stringify(events.map((e) => ({ id: e.id, type: e.type, envelope: e })))],
    );
    const stored = new Set((result as { rows: Array<{ event_id: string }> }).rows.map((r) => r.event_id));
    // Pending already (published again) is false; so is the second copy of an event given twice.
    return events.map((e) => stored.delete(e.id));
  }, 200);
  return {
    add: (event) => adds.run(event),
    async retry(eventId, attempt, dueAt, error) {
      await pending()
        .where({ event_id: eventId })
        .update({ attempt, due_at: new Date(dueAt), last_error: storable(error) });
    },
    async done() {
      // Nothing left to do: the inbox transaction deleted the row together with the effect.
    },
    async dead(event, attempts, error) {
      await db.transaction(async (trx) => {
        await trx('event_dead_letters')
          .insert({
            consumer,
            event_id: event.id,
            type: event.type,
            envelope: JSON.stringify(event),
            attempts,
            last_error: storable(error),
            dead_at: new Date(),
          })
          .onConflict(['consumer', 'event_id'])
          .merge();
        await trx('event_deliveries').where({ consumer, event_id: event.id }).delete();
      });
    },
    async pending() {
      const rows = (await pending().select('envelope', 'attempt', 'due_at').orderBy('due_at')) as Array<{
        envelope: EventEnvelope;
        attempt: number;
        due_at: Date;
      }>;
      return rows.map((r): PendingDelivery => ({ event: r.envelope, attempt: r.attempt, dueAt: r.due_at.getTime() }));
    },
  };
}

/** An error message as text PostgreSQL takes (no NUL) and of a sane length. */
function storable(message: string): string {
  return message.replaceAll('\u0000', '').slice(0, 2000);
}
