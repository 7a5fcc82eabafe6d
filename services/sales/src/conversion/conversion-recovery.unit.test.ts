import { createLogger, type BaseConfig, type Bus, type Knex, type OutboxRelay } from '@bo/runtime';
import { conversionRecovery } from './conversion-recovery';

describe('the conversion recovery task', () => {
  it('runs a pass at start, and stop() waits for the pass in flight and starts no other', async () => {
    let passes = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    // A pass that finds nothing once its claim transaction is let through.
    const db = { transaction: () => (passes++, gate.then(() => undefined)) } as unknown as Knex;
    const task = conversionRecovery(
      { db, bus: {} as Bus, config: { RPC_TIMEOUT_MS: 1000 } as BaseConfig, log: createLogger('sales', 'silent'), relay: { kick() {} } as unknown as OutboxRelay },
      60_000,
    );
    task.start();
    expect(passes).toBe(1);
    let stopped = false;
    const stopping = task.stop().then(() => (stopped = true));
    // Everything that could settle without the pass finishing has settled.
    await new Promise((r) => setImmediate(r));
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(stopped).toBe(true);
    expect(passes).toBe(1);
  });
});
