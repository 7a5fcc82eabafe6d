import type { EventEnvelope } from '@bo/contracts';
import type { DeliveryStore, PendingDelivery, Subscription } from './bus/types';
import type { Knex } from './db';
import type { Logger } from './logger';
import { inTransaction } from './transaction';

export interface InboxHandlerDef {
  /** Durable consumer name, e.g. `partners.ledger`; also the inbox's consumer key. */
  name: string;
  events: readonly string[];
  /** Applies the event's effect inside the transaction that records it as processed. */
  handle(trx: Knex.Transaction, event: EventEnvelope, log: Logger): Promise<void>;
}

/**
 * Wraps a handler so each event id takes effect once: the inbox row and the effect commit together,
 * and a redelivered event finds its row and does nothing. Its deliveries not yet handled are kept in
 * the same schema for the in-process bus (see deliveryStore).
 */
export function inboxSubscription(def: InboxHandlerDef, db: Knex, log: Logger): Subscription {
  return {
    name: def.name,
    events: def.events,
    store: deliveryStore(db, def.name),
    handler: async (event) => {
      const eventLog = log.child({ consumer: def.name, event_id: event.id, type: event.type });
      // Events the effect records go out once it committed (recordEvent); nothing else is owed here.
      const applied = await inTransaction(db, async (trx) => {
        const inserted = await trx.raw('insert into inbox (consumer, event_id, type) values (?, ?, ?) on conflict (consumer, event_id) do nothing returning event_id', [def.name, event.id, event.type]);
        if ((inserted as { rowCount: number }).rowCount === 0) return false;
        await def.handle(trx, event, eventLog);
        return true;
      });
      if (!applied) eventLog.info('duplicate event ignored');
    },
  };
}

/**
 * A consumer's deliveries not yet handled, in its service's schema (migration 003), for the
 * in-process bus, which holds nothing itself: a row in `event_deliveries` from the moment the bus
 * accepts an event (before the outbox forgets it) until its handler succeeded, carrying the next
 * attempt and when it is due; a row in `event_dead_letters` for each event given up after
 * EVENT_MAX_ATTEMPTS. The next start reads the pending rows and delivers them at their due time.
 * The rows leave after the effect committed, so a crash in between delivers the event again and
 * the inbox absorbs it.
 */
export function deliveryStore(db: Knex, consumer: string): DeliveryStore {
  const pending = () => db('event_deliveries').where({ consumer });
  return {
    async add(event) {
      const inserted = await db('event_deliveries')
        .insert({ consumer, event_id: event.id, type: event.type, envelope: JSON.stringify(event), attempt: 1, due_at: new Date() })
        .onConflict(['consumer', 'event_id'])
        .ignore()
        .returning('event_id');
      return inserted.length > 0;
    },
    async retry(eventId, attempt, dueAt, error) {
      await pending().where({ event_id: eventId }).update({ attempt, due_at: new Date(dueAt), last_error: storable(error) });
    },
    async done(eventId) {
      await pending().where({ event_id: eventId }).delete();
    },
    async dead(event, attempts, error) {
      await db.transaction(async (trx) => {
        await trx('event_dead_letters')
          .insert({ consumer, event_id: event.id, type: event.type, envelope: JSON.stringify(event), attempts, last_error: storable(error), dead_at: new Date() })
          .onConflict(['consumer', 'event_id'])
          .merge();
        await trx('event_deliveries').where({ consumer, event_id: event.id }).delete();
      });
    },
    async pending() {
      const rows: Array<{ envelope: EventEnvelope; attempt: number; due_at: Date }> = await pending().select('envelope', 'attempt', 'due_at').orderBy('due_at');
      return rows.map((r): PendingDelivery => ({ event: r.envelope, attempt: r.attempt, dueAt: r.due_at.getTime() }));
    },
  };
}

/** An error message as text PostgreSQL takes (no NUL) and of a sane length. */
function storable(message: string): string {
  return message.replace(/\u0000/g, '').slice(0, 2000);
}
