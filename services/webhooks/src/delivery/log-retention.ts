import { periodicTask, type BackgroundTask, type Knex, type Logger } from '@bo/runtime';

const HOUR_MS = 3600_000;
const BATCH = 500;

/**
 * Deliveries (and their attempts) leave after `days`, a batch per statement, hourly: delivered and
 * failed ones that many days after they were made, and the pending ones of an endpoint disabled
 * that long (enabling it again resumes only what is younger).
 */
export function logRetention(db: Knex, log: Logger, days: number): BackgroundTask {
  return periodicTask('webhook-log-retention', HOUR_MS, log, (stopping) => purgeOldDeliveries(db, log, days, stopping));
}

export async function purgeOldDeliveries(db: Knex, log: Logger, days: number, stopping: () => boolean = () => false): Promise<number> {
  const before = db.raw(`now() - make_interval(days => ?)`, [days]);
  const expired = [
    db('deliveries').whereIn('status', ['delivered', 'failed']).where('created_at', '<', before).select('id'),
    db('deliveries')
      .where('status', 'pending')
      .whereIn('endpoint_id', db('endpoints').where('status', 'disabled').where('disabled_at', '<', before).select('id'))
      .select('id'),
  ];
  let removed = 0;
  for (const rows of expired) {
    for (;;) {
      const n = await db('deliveries').whereIn('id', rows.clone().limit(BATCH)).delete();
      removed += n;
      if (n < BATCH || stopping()) break;
    }
  }
  if (removed) log.info({ removed }, 'old webhook deliveries purged');
  return removed;
}
