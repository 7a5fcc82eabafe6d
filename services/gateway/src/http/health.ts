import { randomUUID } from 'node:crypto';
import type { Bus } from '@bo/runtime';
import { pingOperation } from '@bo/runtime';

const PING_TIMEOUT_MS = 2000;
/** A readiness answer is given again to every caller within this long of when its pings were sent. */
export const READINESS_REUSE_MS = 1000;

export interface Health {
  healthy: boolean;
  services: Record<string, string>;
}

/** Pings every service of the running system in parallel; names those that did not answer in time. */
export async function checkHealth(bus: Bus, services: readonly string[]): Promise<Health> {
  const results = await Promise.all(
    services.map(async (service) => {
      try {
        const reply = await bus.request(pingOperation(service), {}, { orgId: 0, requestId: randomUUID() }, PING_TIMEOUT_MS);
        return [service, reply.ok ? 'ok' : 'error'] as const;
      } catch (err) {
        return [service, (err as { kind?: string }).kind === 'timeout' ? 'timeout' : 'unavailable'] as const;
      }
    }),
  );
  const map = Object.fromEntries(results);
  return { healthy: results.every(([, s]) => s === 'ok'), services: map };
}

/**
 * Readiness (`GET /health/ready`, `/health`) for any number of callers at one ping per service per
 * second at most: callers share the check in flight, and a check's answer is reused until
 * READINESS_REUSE_MS after its pings were sent (not after they were answered, so an answer that waited
 * for a timeout is not given again once the service is back). Liveness (`/health/live`) pings nothing.
 */
export class Readiness {
  private last?: { sentAt: number; pending: boolean; health: Promise<Health> };

  constructor(
    private readonly bus: Bus,
    private readonly services: readonly string[],
    private readonly now: () => number = Date.now,
  ) {}

  check(): Promise<Health> {
    const now = this.now();
    if (this.last && (this.last.pending || now - this.last.sentAt < READINESS_REUSE_MS)) return this.last.health;
    const last = { sentAt: now, pending: true, health: checkHealth(this.bus, this.services) };
    void last.health.finally(() => (last.pending = false));
    this.last = last;
    return last.health;
  }
}
