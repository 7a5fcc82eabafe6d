import type { BackgroundTask, Knex, Logger, OutboxRelay } from '@bo/runtime';
import { periodicTask, today as todayUtc } from '@bo/runtime';
import type { InvoiceRow } from '../invoice/invoice.record';
import { makeNextChild } from './contract';

/** Enough for years of daily catch-up in one pass, bounded so one pass cannot run forever. */
const MAX_CHILDREN_PER_PASS = 5000;

/**
 * Makes every child that is due on or before `today`, one transaction per child. Each contract is
 * claimed with FOR UPDATE SKIP LOCKED, and the lock re-reads its next run date, so several
 * instances running at once share the work and never make the same child twice. Missed periods
 * are caught up: a contract stays due until its next run date is in the future.
 */
export async function runDueContracts(db: Knex, log: Logger, today: string = todayUtc()): Promise<number> {
  let made = 0;
  while (made < MAX_CHILDREN_PER_PASS) {
    const done = await db.transaction(async (trx) => {
      const parent = (await trx('invoices')
        .where({ recurring_enabled: true, recurring_status: 'active' })
        .whereNot('invoicestatus', 'cancelled')
        .where('recurring_next_run_date', '<=', today)
        .orderBy([{ column: 'recurring_next_run_date' }, { column: 'id' }])
        .first()
        .forUpdate()
        .skipLocked()) as InvoiceRow | undefined;
      if (!parent) return false;
      const { child } = await makeNextChild(trx, parent, today);
      log.info({ parent_id: parent.id, child_id: child.id, run_date: parent.recurring_next_run_date }, 'recurring child invoice made');
      return true;
    });
    if (!done) break;
    made += 1;
  }
  return made;
}

/** The scheduler inside the service: a pass at start-up, then one every interval. */
export function recurringScheduler(deps: { db: Knex; log: Logger; relay: OutboxRelay }, intervalMs: number): BackgroundTask {
  const log = deps.log.child({ task: 'recurring-scheduler' });
  return periodicTask('recurring-scheduler', intervalMs, deps.log, async () => {
    if ((await runDueContracts(deps.db, log)) > 0) deps.relay.kick();
  });
}
