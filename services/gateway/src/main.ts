import { createBus, createDb, createLogger, loadConfig, onShutdown } from '@bo/runtime';
import { gatewayConfigSchema } from './config';
import { startGateway } from './gateway';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig(gatewayConfigSchema);
  } catch (err) {
    console.error((err as Error).message);
    process.exit(1);
  }
  const log = createLogger('gateway', config.LOG_LEVEL);
  try {
    const db = createDb(config.DATABASE_URL, 'gateway', config.DB_POOL_MAX);
    const bus = await createBus(config, log);
    const gateway = await startGateway({ db, bus, log, config });
    onShutdown(log, async () => {
      await gateway.stop();
      await bus.close();
      await db.destroy();
    });
  } catch (err) {
    log.fatal({ err }, 'start-up failed');
    process.exit(1);
  }
}

void main();
