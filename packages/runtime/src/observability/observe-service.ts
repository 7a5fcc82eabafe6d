import type { Bus } from '../bus/types';
import type { Knex } from '../db';
import { watchDatabase } from './metrics';
import { observeBus } from './observed-bus';
import { traceQueries } from './sql-spans';

/**
 * Everything a process part (a service, the gateway) hooks in at start: its bus observed (RPC,
 * handler and event metrics and spans), its SQL traced, and its pool, outbox and stored dead
 * letters reported on scrape until stop().
 */
export function observeService(
  name: string,
  deps: { db: Knex; bus: Bus; config: { EVENT_MAX_ATTEMPTS: number } },
  opts: { outbox?: boolean } = {},
): { bus: Bus; stop(): void } {
  traceQueries(deps.db, name);
  const unwatch = watchDatabase(name, deps.db, { outbox: opts.outbox ?? true });
  return { bus: observeBus(deps.bus, name, deps.config.EVENT_MAX_ATTEMPTS), stop: unwatch };
}
