import type { BackgroundTask, BaseConfig, Bus, Knex, Logger, OutboxRelay } from '@bo/runtime';
import { AppError, periodicTask } from '@bo/runtime';
import { findPartner, organizationTodaySql, readSettings, todayByZone, type TodayByZone } from '@bo/billing';
import type { InvoiceRow } from '../invoice/invoice.record';
import { linesOf } from '../invoice/invoice.repository';
import { childLineCheck, type ChildLineCheck } from './child-lines';
import { makeNextChild } from './contract';

/** Enough for years of daily catch-up in one pass, bounded so one pass cannot run forever. */
const MAX_CHILDREN_PER_PASS = 5000;

/**
 * Contracts due by today: each organization's own today in its time zone (UTC when it has none), or,
 * given a date, that date for every organization.
 */
const due = (db: Knex, today: string | TodayByZone) => {
  const by = organizationTodaySql('invoices.org_id', typeof today === 'string' ? { utc: today, zones: new Map() } : today);
  return db('invoices')
    .where({ recurring_enabled: true, recurring_status: 'active' })
    .whereNot('invoicestatus', 'cancelled')
    .whereRaw(`recurring_next_run_date <= ${by.sql}`, by.bindings);
};

/**
 * Makes every child that is due on or before `today`, one transaction per child. A due contract is
 * picked with FOR UPDATE SKIP LOCKED (so instances running at once pick different ones), its lines
 * are checked against the catalog with no transaction open, and the child is made under the
 * contract's lock only if the contract is still due on the same date: several instances never make
 * the same child twice. Missed periods are caught up: a contract stays due until its next run date
 * is in the future. A contract whose partner the read model marks deleted, or whose lines name a
 * product gone from the catalog, stops, with the reason; a catalog that cannot be asked ends the pass (the next one tries again).
 */
export async function runDueContracts(db: Knex, log: Logger, today: string | TodayByZone, checkLines: ChildLineCheck): Promise<number> {
  let made = 0;
  while (made < MAX_CHILDREN_PER_PASS) {
    const candidate = (await db.transaction((trx) =>
      due(trx, today)
        .orderBy([{ column: 'recurring_next_run_date' }, { column: 'id' }])
        .first()
        .forUpdate()
        .skipLocked(),
    )) as InvoiceRow | undefined;
    if (!candidate) break;
    // The partner-deleted consumer stops these contracts; the read model is checked too, so a partner
    // deleted while that consumer is behind (or its event dead-lettered) is never billed again.
    const partner = await findPartner(db, candidate.org_id, candidate.partner_id);
    if (partner?.deleted_at) {
      await stopContract(db, candidate, `Partner ${candidate.partner_id} was deleted`);
      log.warn({ parent_id: candidate.id, partner_id: candidate.partner_id }, 'recurring contract stopped: its partner was deleted');
      continue;
    }
    try {
      await checkLines(candidate.org_id, (await linesOf(db, [candidate.id])).get(candidate.id) ?? []);
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) {
        log.warn(
          { parent_id: candidate.id, err: (err as Error).message },
          'catalog could not check a recurring contract; trying again next pass',
        );
        break;
      }
      await stopContract(db, candidate, `Stopped: ${err.message}`);
      log.warn({ parent_id: candidate.id, reason: err.message }, 'recurring contract stopped: its lines no longer match the catalog');
      continue;
    }
    const done = await db.transaction(async (trx) => {
      const parent = (await due(trx, today)
        .where({ id: candidate.id, recurring_next_run_date: candidate.recurring_next_run_date })
        .first()
        .forUpdate()
        .skipLocked()) as InvoiceRow | undefined;
      // Another instance made this child meanwhile, or holds the contract now: look for the next one.
      if (!parent) return false;
      const { child } = await makeNextChild(
        trx,
        parent,
        typeof today === 'string' ? today : (await readSettings(trx, parent.org_id)).today(today.instant),
      );
      log.info({ parent_id: parent.id, child_id: child.id, run_date: parent.recurring_next_run_date }, 'recurring child invoice made');
      return true;
    });
    if (done) made += 1;
  }
  return made;
}

async function stopContract(db: Knex, contract: InvoiceRow, reason: string): Promise<void> {
  await db('invoices')
    .where({ id: contract.id, recurring_status: 'active' })
    .update({
      recurring_status: 'cancelled',
      recurring_next_run_date: null,
      recurring_cancellation_reason: reason.slice(0, 2000),
      updated_at: db.fn.now(),
    });
}

/** The scheduler inside the service: a pass at start-up, then one every interval. */
export function recurringScheduler(
  deps: { db: Knex; bus: Bus; config: BaseConfig; log: Logger; relay: OutboxRelay },
  intervalMs: number,
): BackgroundTask {
  const log = deps.log.child({ task: 'recurring-scheduler' });
  const checkLines = childLineCheck(deps);
  return periodicTask('recurring-scheduler', intervalMs, deps.log, async () => {
    if ((await runDueContracts(deps.db, log, await todayByZone(deps.db), checkLines)) > 0) deps.relay.kick();
  });
}
