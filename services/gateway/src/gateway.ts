import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  gatewayKeyPurge,
  migrate,
  observeService,
  periodicTask,
  purgeExpired,
  retentionWindows,
  type Bus,
  type Knex,
  type Logger,
} from '@bo/runtime';
import type { GatewayConfig } from './config';
import { createGatewayApp } from './http/app';
import { gatewayMigrations } from './migrations';
import { REPLICA_HEARTBEAT_MS, ReplicaRegistry } from './rate-limit/replicas';

export interface RunningGateway {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** Migrates the gateway schema and listens; stop() stops accepting and waits for open requests. */
export async function startGateway(deps: { db: Knex; bus: Bus; log: Logger; config: GatewayConfig }): Promise<RunningGateway> {
  await migrate(deps.db, 'gateway', gatewayMigrations);
  const observed = observeService('gateway', deps, { outbox: false });
  // This replica counts for the others before it serves, so together they never admit more in flight than one share over the cap.
  const replicas = new ReplicaRegistry(deps.db, (err) =>
    deps.log.warn({ err: (err as Error).message }, 'replica heartbeat failed; the share of the in-flight cap stays as it was'),
  );
  await replicas.beat();
  const heartbeat = periodicTask('replicas', REPLICA_HEARTBEAT_MS, deps.log, () => replicas.beat());
  heartbeat.start();
  const app = createGatewayApp({ ...deps, bus: observed.bus, replicas });
  const server: Server = await new Promise((resolve, reject) => {
    const s = createServer(app);
    s.once('error', reject);
    s.listen(deps.config.PORT, '0.0.0.0', () => {
      s.off('error', reject);
      resolve(s);
    });
  });
  server.keepAliveTimeout = 65_000;
  const port = (server.address() as AddressInfo).port;
  // The keys an earlier version kept here drain after the window the services keep their records.
  const retention = periodicTask('retention', deps.config.RETENTION_INTERVAL_MS, deps.log, (stopping) =>
    purgeExpired(deps.db, retentionWindows(deps.config), gatewayKeyPurge, stopping),
  );
  retention.start();
  deps.log.info({ port }, 'gateway listening');
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    stop: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await retention.stop();
      await heartbeat.stop();
      await replicas.leave();
      observed.stop();
    },
  };
}
