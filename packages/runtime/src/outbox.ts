import { randomUUID } from 'node:crypto';
import type { EventEnvelope } from '@bo/contracts';
import type { Bus } from './bus/types';
import type { Knex } from './db';
import type { Logger } from './logger';
import { currentTraceContext, outsideTrace, traceContextFrom } from './observability/tracing';
import { formatDateTime } from './time';

/** Writes an event into the outbox inside the caller's transaction: it exists iff the change commits. */
export async function recordEvent<D extends object>(trx: Knex.Transaction, type: string, orgId: number, data: D): Promise<EventEnvelope<D>> {
  const envelope = { id: randomUUID(), type, occurred_at: formatDateTime(new Date()) as string, org_id: orgId, data };
  const trace = currentTraceContext();
  await trx('outbox').insert({ event_id: envelope.id, type, org_id: orgId, envelope: JSON.stringify(envelope), traceparent: trace?.traceparent ?? null, tracestate: trace?.tracestate ?? null });
  return envelope;
}

const BATCH = 200;

/**
 * Publishes outbox rows in id order and marks them sent once the broker confirmed them. Rows are
 * claimed with SKIP LOCKED so several instances share the work; a crash between publish and mark
 * republishes, which consumers absorb through their inbox.
 */
export class OutboxRelay {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private again = false;
  private stopped = false;

  constructor(
    private readonly db: Knex,
    private readonly bus: Bus,
    private readonly log: Logger,
    private readonly pollMs = 1000,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.kick(), this.pollMs);
    this.timer.unref();
    this.kick();
  }

  /** Asks for a drain soon; coalesces with one already running. */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = outsideTrace(() => this.loop()).finally(() => (this.running = undefined));
  }

  private async loop(): Promise<void> {
    do {
      this.again = false;
      try {
        while ((await this.drainBatch()) === BATCH);
      } catch (err) {
        this.log.warn({ err: (err as Error).message }, 'outbox relay could not publish; will retry');
        return;
      }
    } while (this.again);
  }

  private async drainBatch(): Promise<number> {
    let failure: Error | undefined;
    const published = await this.db.transaction(async (trx) => {
      const rows: Array<{ id: number; envelope: EventEnvelope; traceparent: string | null; tracestate: string | null }> = await trx('outbox')
        .select('id', 'envelope', 'traceparent', 'tracestate')
        .whereNull('published_at')
        .orderBy('id')
        .limit(BATCH)
        .forUpdate()
        .skipLocked();
      if (rows.length === 0) return 0;
      const ids = rows.map((r) => r.id);
      try {
        await Promise.all(rows.map((r) => this.bus.publish(r.envelope, { trace: traceContextFrom(r) })));
      } catch (err) {
        // Commit the attempt, not the publication: the rows stay pending for the next drain.
        failure = err as Error;
        await trx('outbox').whereIn('id', ids).update({ attempts: trx.raw('attempts + 1'), last_error: failure.message });
        return 0;
      }
      await trx('outbox').whereIn('id', ids).update({ published_at: trx.fn.now() });
      return rows.length;
    });
    if (failure) throw failure;
    return published;
  }

  /** Stops polling after publishing whatever is still waiting. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
    this.again = false;
    await this.loop();
    this.stopped = true;
  }
}
