import type { Bus, Knex, Logger } from '@bo/runtime';
import type { GatewayConfig } from '../config';

/**
 * What the gateway's HTTP side is built from: its database (API keys, rate limits), the bus, the log,
 * its settings, and the live replicas (rate-limit/replicas.ts) whose count divides the cap on an
 * organization's requests in flight (absent: this replica is alone).
 */
export interface GatewayDeps {
  db: Knex;
  bus: Bus;
  log: Logger;
  config: Pick<
    GatewayConfig,
    | 'BODY_LIMIT_BYTES'
    | 'API_KEY_CACHE_MS'
    | 'RPC_TIMEOUT_MS'
    | 'HEALTH_SERVICES'
    | 'IDEMPOTENCY_TTL_HOURS'
    | 'RATE_LIMIT_READS_PER_SECOND'
    | 'RATE_LIMIT_WRITES_PER_SECOND'
    | 'RATE_LIMIT_IN_FLIGHT'
    | 'RATE_LIMIT_LEASE_MS'
    | 'RATE_LIMIT_ANONYMOUS_PER_SECOND'
    | 'TRUST_PROXY'
  >;
  replicas?: { share(cap: number): number };
}
