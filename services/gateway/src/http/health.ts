import { randomUUID } from 'node:crypto';
import type { Bus } from '@bo/runtime';
import { pingOperation } from '@bo/runtime';

const PING_TIMEOUT_MS = 2000;

/** Pings every service of the running system in parallel; names those that did not answer in time. */
export async function checkHealth(bus: Bus, services: readonly string[]): Promise<{ healthy: boolean; services: Record<string, string> }> {
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
