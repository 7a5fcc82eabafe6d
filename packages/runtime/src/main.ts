import type { z } from 'zod';
import { loadConfig, type BaseConfig } from './config';
import { createBus, type Bus } from './bus';
import { createDb, dbOptions, type Knex } from './db';
import { createLogger, type Logger } from './logger';
import { serveMetrics } from './observability/metrics-server';
import { startTracing, stopTracing } from './observability/tracing';
import { serviceConfigSchema, startService, type ServiceDefinition } from './service';
import { startRetryingLockTimeouts } from './startup';

/** Stops cleanly on SIGINT/SIGTERM: the callback runs once, a second signal forces the exit. */
export function onShutdown(log: Logger, stop: () => Promise<void>): void {
  let stopping = false;
  const handle = (signal: string) => {
    if (stopping) {
      log.warn(`${signal} again, exiting now`);
      process.exit(1);
    }
    stopping = true;
    log.info(`${signal} received, shutting down`);
    stop().then(
      () => process.exit(0),
      (err) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => handle('SIGINT'));
  process.on('SIGTERM', () => handle('SIGTERM'));
}

/**
 * Entry point of a process: validated config from the environment, its own pool (schema `name`)
 * and bus; `start` returns what stops the work, then the bus and pool close. Bad config or a
 * failed start exits 1 with the reason.
 */
export async function runProcess<C extends BaseConfig>(
  name: string,
  schema: z.ZodType<C>,
  start: (deps: { config: C; log: Logger; db: Knex; bus: Bus }) => Promise<{ stop(): Promise<void> }>,
): Promise<void> {
  let config: C;
  try {
    config = loadConfig(schema);
  } catch (err) {
    console.error((err as Error).message);
    process.exit(1);
  }
  // Before the logger, so its lines carry trace ids.
  startTracing({ endpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT });
  const log = createLogger(name, config.LOG_LEVEL);
  try {
    const db = createDb(config.DATABASE_URL, name, config.DB_POOL_MAX, dbOptions(config));
    const bus = await createBus(config, log);
    // A migration that timed out on a table lock (live instances' transactions) is tried again.
    const running = await startRetryingLockTimeouts(() => start({ config, log, db, bus }), log);
    const metricsServer = config.METRICS_PORT === undefined ? undefined : await serveMetrics(config.METRICS_PORT, log);
    onShutdown(log, async () => {
      await metricsServer?.stop();
      await running.stop();
      await bus.close();
      await db.destroy();
      await stopTracing();
    });
  } catch (err) {
    log.fatal({ err }, 'start-up failed');
    process.exit(1);
  }
}

/** Entry point of a service process. */
export function runServiceMain(def: ServiceDefinition): Promise<void> {
  return runProcess(def.name, serviceConfigSchema(def), (deps) => startService(def, deps));
}
