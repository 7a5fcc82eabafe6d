import { loadConfig, type BaseConfig } from './config';
import { createBus } from './bus';
import { createDb } from './db';
import { createLogger, type Logger } from './logger';
import { serviceConfigSchema, startService, type ServiceDefinition } from './service';

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

/** Entry point of a service process: config from the environment, its own db pool and bus. */
export async function runServiceMain(def: ServiceDefinition): Promise<void> {
  let config: BaseConfig;
  try {
    config = loadConfig(serviceConfigSchema(def));
  } catch (err) {
    console.error((err as Error).message);
    process.exit(1);
  }
  const log = createLogger(def.name, config.LOG_LEVEL);
  try {
    const db = createDb(config.DATABASE_URL, def.name, config.DB_POOL_MAX);
    const bus = await createBus(config, log);
    const service = await startService(def, { db, bus, log, config });
    onShutdown(log, async () => {
      await service.stop();
      await bus.close();
      await db.destroy();
    });
  } catch (err) {
    log.fatal({ err }, 'start-up failed');
    process.exit(1);
  }
}
