import type { EventEnvelope } from '@bo/contracts';
import type { Subscription } from './bus/types';
import type { Knex } from './db';
import type { Logger } from './logger';

export interface InboxHandlerDef {
  /** Durable consumer name, e.g. `partners.ledger`; also the inbox's consumer key. */
  name: string;
  events: readonly string[];
  /** Applies the event's effect inside the transaction that records it as processed. */
  handle(trx: Knex.Transaction, event: EventEnvelope, log: Logger): Promise<void>;
}

/**
 * Wraps a handler so each event id takes effect once: the inbox row and the effect commit together,
 * and a redelivered event finds its row and does nothing.
 */
export function inboxSubscription(def: InboxHandlerDef, db: Knex, log: Logger, afterCommit: () => void): Subscription {
  return {
    name: def.name,
    events: def.events,
    handler: async (event) => {
      const eventLog = log.child({ consumer: def.name, event_id: event.id, type: event.type });
      const applied = await db.transaction(async (trx) => {
        const inserted = await trx('inbox')
          .insert({ consumer: def.name, event_id: event.id, type: event.type })
          .onConflict(['consumer', 'event_id'])
          .ignore()
          .returning('event_id');
        if (inserted.length === 0) return false;
        await def.handle(trx, event, eventLog);
        return true;
      });
      if (applied) afterCommit();
      else eventLog.info('duplicate event ignored');
    },
  };
}
