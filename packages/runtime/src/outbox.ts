import { randomUUID } from 'node:crypto';
import type { EventDef, EventEnvelope } from '@bo/contracts';
import type { z } from 'zod';
import type { Bus } from './bus/types';
import type { Knex, SqlStatement } from './db';
import type { Logger } from './logger';
import { currentTraceContext, outsideTrace, traceContextFrom, type TraceContext } from './observability/tracing';
import { formatDateTime } from '@bo/kernel';

/**
 * How long an event its own writer publishes right after the commit is left to it before the
 * relay's poll takes the row over: far above a broker confirm, so the two rarely both publish it
 * (when they do, consumers absorb the twin), and short enough for a crash's leftovers.
 */
export const DIRECT_CLAIM_MS = 10_000;

/** The relay publishing each service's events, by the knex configuration its transactions share. */
const relays = new WeakMap<object, OutboxRelay>();

/**
 * Writes an event into the outbox inside the caller's transaction: it exists iff the change commits.
 * The event is named by its contract, whose schema types its data, so a payload that drifts from
 * what consumers and the AsyncAPI document are told fails to compile.
 * Once the transaction committed, its events are published at once by the process that wrote them
 * (no poll, no second transaction); the relay's poll publishes whatever that did not. In a
 * transaction the runtime opened (inTransaction) the row is not inserted at once but with the
 * statement that ends the work (the recorded reply, or one insert for all its events).
 */
export async function recordEvent<E extends EventDef>(
  trx: Knex.Transaction,
  event: E,
  orgId: number,
  data: z.input<E['data']>,
): Promise<EventEnvelope<z.input<E['data']>>> {
  const envelope = newEnvelope(event, orgId, data);
  const trace = currentTraceContext();
  const relay = relays.get(configOf(trx));
  const committed = (trx as Partial<Knex.Transaction>).executionPromise;
  // Not from inside a savepoint: it may still be rolled back while the transaction commits.
  const whole = committed && !trx.parentTransaction ? committed : undefined;
  const direct = relay && whole ? relay : undefined;
  const row = outboxRowOf(envelope as EventEnvelope, trace, !!direct);
  const later = whole && deferred.get(whole);
  if (later) later.rows.push(row);
  else {
    const insert = outboxInsert([row]);
    await trx.raw(insert.sql, insert.bindings);
  }
  if (direct) direct.publishOnCommit(trx, { envelope: envelope as EventEnvelope, trace });
  else if (relay && committed) relay.kickOnCommit(rootOf(trx));
  return envelope;
}

/** A new event's envelope: a fresh id, now as its time. */
function newEnvelope<D>(event: EventDef, orgId: number, data: D) {
  return { id: randomUUID(), type: event.type, occurred_at: formatDateTime(new Date()) as string, org_id: orgId, data };
}

/** The outbox row of an envelope, in the trace it was recorded in; `claimed` when its writer publishes it after the commit. */
function outboxRowOf(envelope: EventEnvelope, trace: TraceContext | undefined, claimed: boolean): OutboxRow {
  return {
    event_id: envelope.id,
    type: envelope.type,
    org_id: envelope.org_id,
    envelope,
    traceparent: trace?.traceparent ?? null,
    tracestate: trace?.tracestate ?? null,
    claimed,
  };
}

/** An outbox row as recorded; `claimed` when its writer publishes it after the commit. */
interface OutboxRow {
  event_id: string;
  type: string;
  org_id: number;
  envelope: object;
  traceparent: string | null;
  tracestate: string | null;
  claimed: boolean;
}

/**
 * A write a handler hands to the statement that ends its transaction (`storeWithCommit`): one
 * statement, run there as a data-modifying CTE of it. It may not read what another part writes (the
 * parts of one statement see one snapshot): a row another part inserts is named by an id drawn
 * before (a sequence's nextval in the load), not read back.
 */
export interface StorePart {
  sql: string;
  bindings: Knex.RawBinding[];
}

/** What a transaction the runtime opened still has to write, with the statement that ends it. */
interface Deferred {
  rows: OutboxRow[];
  parts: StorePart[];
}

/** Rows recorded and parts handed over in a transaction the runtime opened, not written yet, by that transaction. */
const deferred = new WeakMap<Promise<unknown>, Deferred>();

/** From now on the transaction's events wait for the statement that ends it (see takeDeferredWrites). */
export function deferEvents(trx: Knex.Transaction): void {
  deferred.set(trx.executionPromise, { rows: [], parts: [] });
}

/**
 * Writes the parts with the statement that ends the transaction, when the runtime opened it (the
 * recorded reply, whose failure rolls them back with everything else), else at once as one
 * statement. The store of a load → decide → store write: its rows, the events' outbox rows and the
 * reply's record go to PostgreSQL as one statement. A part must not fail for a reason the handler
 * would answer (its decision has ruled those out under the locks its load took): a failure there
 * fails the write as any failed statement does. The transaction's later statements do not see the
 * parts' rows (they are written last): hand them over once nothing more reads them.
 */
export async function storeWithCommit(trx: Knex.Transaction, parts: readonly StorePart[]): Promise<void> {
  const committed = (trx as Partial<Knex.Transaction>).executionPromise;
  const later = committed && !trx.parentTransaction ? deferred.get(committed) : undefined;
  if (later) {
    later.parts.push(...parts);
    return;
  }
  await storeAtOnce(trx, parts);
}

/**
 * When a store is written: `with commit` (storeWithCommit), or `at once` (storeAtOnce) for a write
 * whose caller goes on, in the same transaction, to read or name what it stored.
 */
export type StoreMoment = 'with commit' | 'at once';

/** Writes the parts at the moment the caller says (StoreMoment). */
export async function storeAt(trx: Knex.Transaction, parts: readonly StorePart[], moment: StoreMoment): Promise<void> {
  await (moment === 'with commit' ? storeWithCommit(trx, parts) : storeAtOnce(trx, parts));
}

/**
 * Writes the parts now, as one statement: for a store whose rows the transaction's later statements
 * name or read (a foreign key to them, a check of what they changed), which storeWithCommit would
 * write only after those.
 */
export async function storeAtOnce(trx: Knex.Transaction, parts: readonly StorePart[]): Promise<void> {
  const now = withParts(parts, undefined);
  if (now) await trx.raw(`with ${now.sql} select 1`, now.bindings);
}

/**
 * The transaction's writes not made yet, as the CTEs that go before the statement that ends it
 * (`with <sql>, …`): the handed-over parts, then the events' outbox insert as `events`. Undefined if none.
 */
export function takeDeferredWrites(trx: Knex | Knex.Transaction): SqlStatement | undefined {
  const committed = (trx as Partial<Knex.Transaction>).executionPromise;
  const waiting = committed && deferred.get(committed);
  if (!waiting || (waiting.rows.length === 0 && waiting.parts.length === 0)) return undefined;
  deferred.set(committed, { rows: [], parts: [] });
  const writes = withParts(waiting.parts, waiting.rows.length > 0 ? outboxInsert(waiting.rows) : undefined);
  const marks = writes && ridingMarks(trx);
  if (!marks) return writes;
  // Whatever fails the transaction from here on rolls the marks back with it.
  committed.then(marks.kept, marks.giveBack);
  return { sql: `${writes.sql}, ${marks.cte.sql}`, bindings: [...writes.bindings, ...marks.cte.bindings] };
}

function withParts(parts: readonly StorePart[], events: SqlStatement | undefined): SqlStatement | undefined {
  const ctes = parts.map((part, i) => ({ sql: `store${i + 1} as (${part.sql})`, bindings: part.bindings }));
  if (events) ctes.push({ sql: `events as (${events.sql})`, bindings: events.bindings });
  if (ctes.length === 0) return undefined;
  return { sql: ctes.map((c) => c.sql).join(', '), bindings: ctes.flatMap((c) => c.bindings) };
}

/** Writes whatever the transaction still waits to write (its events, handed-over parts); run last in the transaction. */
export async function flushDeferredEvents(trx: Knex.Transaction): Promise<void> {
  const writes = takeDeferredWrites(trx);
  if (writes) await trx.raw(`with ${writes.sql} select 1`, writes.bindings);
}

const MARK_SENT_SQL = 'update outbox set published_at = now(), claimed_until = null where event_id = any(?::uuid[])';

/**
 * The marks of events this service published directly and has not marked sent yet, as a CTE
 * (`marked as (…)`) riding on a store statement that is written anyway, so that marking costs no
 * statement of its own while writes keep coming (the relay's timer marks what none took). The
 * caller says how the statement ended: `kept` once it (or its transaction) committed, `giveBack`
 * when it failed. Until then the relay still counts the marks as waiting, and its timer marks those
 * lent longer than its delay itself (marking twice is harmless): a statement that is slow to end
 * cannot keep an event unmarked past its claim, after which it would be published again (which
 * consumers absorb through their inbox).
 */
export function ridingMarks(db: Knex | Knex.Transaction): { cte: SqlStatement; kept: () => void; giveBack: () => void } | undefined {
  const relay = relays.get(configOf(db));
  const ids = relay?.lendMarks();
  if (!relay || !ids?.length) return undefined;
  return {
    cte: { sql: `marked as (${MARK_SENT_SQL})`, bindings: [ids] },
    kept: () => relay.keptMarks(ids),
    giveBack: () => relay.returnMarks(ids),
  };
}

/**
 * The events of a write that is one statement with no transaction of its own (one-statement.ts): their
 * outbox rows, claimed for the writer's direct publication (publishStatementEvents), and their
 * envelopes. What the statement makes is filled into the rows' JSON in SQL and into the envelopes in
 * memory, the same way.
 */
export function statementEvents(events: ReadonlyArray<{ event: EventDef; orgId: number; data: Record<string, unknown> }>): {
  rows: OutboxRow[];
  envelopes: EventEnvelope[];
  trace: TraceContext | undefined;
} {
  const trace = currentTraceContext();
  const envelopes: EventEnvelope[] = events.map(({ event, orgId, data }) => newEnvelope(event, orgId, data));
  return { rows: envelopes.map((envelope) => outboxRowOf(envelope, trace, true)), envelopes, trace };
}

/** Publishes the events a one-statement write stored, now that it committed (the relay's poll takes any this fails). */
export function publishStatementEvents(db: Knex, envelopes: readonly EventEnvelope[], trace: TraceContext | undefined): void {
  const relay = relays.get(configOf(db));
  if (!relay) return;
  if (envelopes.length) relay.publishCommitted(envelopes.map((envelope) => ({ envelope, trace })));
}

/** One statement inserting the rows in order (it also serves as a CTE of a larger statement). */
function outboxInsert(rows: OutboxRow[]): SqlStatement {
  return outboxInsertFrom('?', [JSON.stringify(rows)]);
}

/** The outbox insert of rows given as JSON text by SQL (`rowsSql`, with its bindings), in their order. */
export function outboxInsertFrom(rowsSql: string, bindings: readonly Knex.RawBinding[]): SqlStatement {
  return {
    sql: `insert into outbox (event_id, type, org_id, envelope, traceparent, tracestate, claimed_until)
          select e.event_id, e.type, e.org_id, e.envelope, e.traceparent, e.tracestate,
                 case when e.claimed then clock_timestamp() + make_interval(secs => ?) end
          from rows from (jsonb_to_recordset((${rowsSql})::jsonb) as (event_id uuid, type text, org_id int, envelope jsonb, traceparent text, tracestate text, claimed boolean))
               with ordinality as e(event_id, type, org_id, envelope, traceparent, tracestate, claimed, ord)
          order by e.ord`,
    bindings: [DIRECT_CLAIM_MS / 1000, ...bindings],
  };
}

interface Pending {
  envelope: EventEnvelope;
  trace?: TraceContext;
}

const BATCH = 200;

/**
 * How long after its confirm a directly published event waits for a store statement to carry its
 * mark (ridingMarks) before the relay marks it with a statement of its own (OUTBOX_MARK_DELAY_MS):
 * far below the claim.
 */
const MARK_DELAY_MS = 1000;

/** The most marks one statement carries. */
const MARKS_PER_STATEMENT = 1000;

/**
 * Publishes outbox rows and marks them sent once the broker confirmed them, holding no transaction
 * (nor pooled connection) while it waits. Events of a transaction of this process go out as soon as
 * it committed (`publishOnCommit`); the poll, every `pollMs` and when kicked, takes the rest in id
 * order: rows whose direct publication failed or never happened (a crash), and rows of transactions
 * inside savepoints. A row is claimed for a while before it is published (by its writer's insert, or
 * by the poll's update with SKIP LOCKED), so several instances share the work; a crash between
 * publish and mark republishes, which consumers absorb through their inbox.
 */
export class OutboxRelay {
  private timer?: NodeJS.Timeout;
  // Background work, kicked from inside requests: it must not join their traces.
  private readonly poll = new Coalesced(() => outsideTrace(() => this.drain()));
  private readonly marker = new Coalesced(() => outsideTrace(() => this.flushMarks()));
  private readonly direct = new Set<Promise<void>>();
  private readonly byTransaction = new WeakMap<Promise<unknown>, Pending[]>();
  private readonly kickAfter = new WeakSet<Promise<unknown>>();
  private marks: string[] = [];
  /** Marks lent to a statement that has not ended yet, with when they were lent. */
  private readonly lent = new Map<string, number>();
  private markTimer?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly db: Knex,
    private readonly bus: Bus,
    private readonly log: Logger,
    private readonly pollMs = 1000,
    private readonly markDelayMs = MARK_DELAY_MS,
  ) {}

  /** Starts polling and publishing events right after their commit. */
  start(): void {
    relays.set(configOf(this.db), this);
    this.timer = setInterval(() => this.kick(), this.pollMs);
    this.timer.unref();
    this.kick();
  }

  /** Asks for a poll soon; coalesces with one already running. */
  kick(): void {
    if (!this.stopped) this.poll.run();
  }

  /** Publishes the event once the transaction (which claimed its row) commits; nothing if it rolls back. */
  publishOnCommit(trx: Knex.Transaction, pending: Pending): void {
    const committed = trx.executionPromise;
    const list = this.byTransaction.get(committed);
    if (list) {
      list.push(pending);
      return;
    }
    const events = [pending];
    this.byTransaction.set(committed, events);
    committed.then(
      () => this.publishNow(events),
      () => undefined,
    );
  }

  /** Publishes events whose rows committed already, claimed for this process (a one-statement write's). */
  publishCommitted(events: Pending[]): void {
    this.publishNow(events);
  }

  /** Polls once the transaction commits (its events were recorded where a direct publication is not safe). */
  kickOnCommit(trx: Knex.Transaction): void {
    const committed = trx.executionPromise;
    if (this.kickAfter.has(committed)) return;
    this.kickAfter.add(committed);
    committed.then(
      () => this.kick(),
      () => undefined,
    );
  }

  private publishNow(events: Pending[]): void {
    const ids = events.map((e) => e.envelope.id);
    const work = outsideTrace(async () => {
      try {
        await Promise.all(events.map((e) => this.bus.publish(e.envelope, { trace: e.trace })));
      } catch (err) {
        this.log.warn({ err: (err as Error).message }, 'events not published after their commit; the outbox poll will retry');
        // Their claim ends now, so the next poll takes them (a failure here leaves the claim to run out).
        await this.db
          .raw('update outbox set claimed_until = null where event_id = any(?::uuid[]) and published_at is null', [ids])
          .catch(() => undefined);
        return;
      }
      this.marks.push(...ids);
      this.scheduleMarks();
    });
    this.direct.add(work);
    void work.finally(() => this.direct.delete(work));
  }

  /** Hands the marks waiting to a store statement that carries them (ridingMarks); the timer still counts them until that statement ends. */
  lendMarks(): string[] {
    const ids = this.marks.splice(0, MARKS_PER_STATEMENT);
    const now = Date.now();
    for (const id of ids) this.lent.set(id, now);
    this.scheduleMarks();
    return ids;
  }

  /** The statement that carried these marks committed: they are marked. */
  keptMarks(ids: readonly string[]): void {
    for (const id of ids) this.lent.delete(id);
  }

  /** Takes back marks whose statement did not commit: the timer marks them. */
  returnMarks(ids: readonly string[]): void {
    const back = ids.filter((id) => this.lent.delete(id));
    this.marks.push(...back);
    this.scheduleMarks();
  }

  /** A little later, so the events of many transactions are marked by one statement (their claim covers the wait). */
  private scheduleMarks(): void {
    if (this.markTimer || (this.marks.length === 0 && this.lent.size === 0)) return;
    this.markTimer = setTimeout(() => {
      this.markTimer = undefined;
      this.marker.run();
    }, this.markDelayMs);
    // As the poll's: a process may exit with marks waiting (stop() marks them first); unmarked, they are published again later.
    this.markTimer.unref();
  }

  /** Marks what was published directly, all that is waiting in one statement, and what a statement has carried longer than the delay. */
  private async flushMarks(): Promise<void> {
    const overdue = Date.now() - this.markDelayMs;
    for (const [id, at] of this.lent) {
      if (at > overdue) continue;
      this.lent.delete(id);
      this.marks.push(id);
    }
    while (this.marks.length > 0) {
      const ids = this.marks.splice(0, MARKS_PER_STATEMENT);
      try {
        await this.db.raw(MARK_SENT_SQL, [ids]);
      } catch (err) {
        // Still claimed: once the claim runs out the poll publishes them again, and consumers absorb the twins.
        this.log.warn({ err: (err as Error).message, events: ids.length }, 'published events could not be marked sent');
      }
    }
    // Lent marks not yet overdue are looked at again after the delay.
    if (!this.stopped) this.scheduleMarks();
  }

  private async drain(): Promise<void> {
    try {
      while ((await this.drainBatch()) === BATCH);
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'outbox relay could not publish; will retry');
    }
  }

  private async drainBatch(): Promise<number> {
    const result: unknown = await this.db.raw(
      `update outbox set claimed_until = clock_timestamp() + make_interval(secs => ?)
       where id in (select id from outbox where published_at is null and (claimed_until is null or claimed_until <= clock_timestamp())
                    order by id limit ? for update skip locked)
       returning id, envelope, traceparent, tracestate`,
      [DIRECT_CLAIM_MS / 1000, BATCH],
    );
    const rows = (
      result as { rows: Array<{ id: number; envelope: EventEnvelope; traceparent: string | null; tracestate: string | null }> }
    ).rows.sort((a, b) => a.id - b.id);
    if (rows.length === 0) return 0;
    const ids = rows.map((r) => r.id);
    try {
      await outsideTrace(() => Promise.all(rows.map((r) => this.bus.publish(r.envelope, { trace: traceContextFrom(r) }))));
    } catch (err) {
      // The rows stay pending, their claim ended, for the next poll.
      await this.db.raw('update outbox set attempts = attempts + 1, last_error = ?, claimed_until = null where id = any(?::bigint[])', [
        (err as Error).message,
        ids,
      ]);
      throw err;
    }
    await this.db.raw('update outbox set published_at = now(), claimed_until = null where id = any(?::bigint[])', [ids]);
    return rows.length;
  }

  /** Stops polling after publishing whatever is still waiting. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    if (relays.get(configOf(this.db)) === this) relays.delete(configOf(this.db));
    this.stopped = true;
    while (this.direct.size > 0) await Promise.allSettled([...this.direct]);
    clearTimeout(this.markTimer);
    this.markTimer = undefined;
    this.marker.run();
    await this.marker.idle();
    await this.poll.idle();
    await this.drain();
  }
}

/**
 * Runs its work now, or once more after the run under way when asked meanwhile: requests coalesce
 * and none is lost between the end of one run and the next (a request arriving as a run finishes
 * starts another).
 */
class Coalesced {
  private running?: Promise<void>;
  private again = false;

  constructor(private readonly work: () => Promise<void>) {}

  run(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.again = false;
    this.running = this.work().finally(() => {
      this.running = undefined;
      if (this.again) this.run();
    });
  }

  async idle(): Promise<void> {
    while (this.running) await this.running;
  }
}

function configOf(db: Knex): object {
  return (db.client as { config: object }).config;
}

function rootOf(trx: Knex.Transaction): Knex.Transaction {
  let root = trx;
  while (root.parentTransaction) root = root.parentTransaction;
  return root;
}
