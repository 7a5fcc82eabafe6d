import { periodicTask, type BackgroundTask, type Knex, type Logger } from '@bo/runtime';

const HOUR_MS = 3600_000;
const BATCH = 500;

/** Delivered and failed deliveries (and their attempts) older than the retention leave, a batch per statement, hourly. */
export function logRetention(db: Knex, log: Logger, days: number): BackgroundTask {
  return periodicTask('webhook-log-retention', HOUR_MS, log, async (stopping) => {
    let removed = 0;
    for (;;) {
      const n = await db('deliveries')
        .whereIn(
          'id',
          db('deliveries')
            .whereIn('status', ['delivered', 'failed'])
            .where('created_at', '<', db.raw(`now() - make_interval(days => ?)`, [days]))
            .select('id')
            .limit(BATCH),
        )
        .delete();
      removed += n;
      if (n < BATCH || stopping()) break;
    }
    if (removed) log.info({ removed }, 'old webhook deliveries purged');
  });
}
