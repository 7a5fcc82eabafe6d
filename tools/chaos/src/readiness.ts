import type { BrokerInspector } from './broker';
import type { Fleet } from './processes';

export interface Readiness {
  ready: boolean;
  /** What is still missing, e.g. `invoicing rpc consumers 1/2`. */
  missing: string[];
}

/**
 * Everything is up again when every process runs, each gateway's /health says every service
 * answers, and every RPC and event queue has one consumer per instance of its service (so a
 * restarted second instance counts too, which /health alone cannot tell).
 */
export async function readiness(fleet: Fleet, broker: BrokerInspector, gatewayUrl: string | readonly string[]): Promise<Readiness> {
  const missing: string[] = [];
  for (const name of fleet.names) if (!fleet.isRunning(name)) missing.push(`${name} not running`);
  for (const gateway of typeof gatewayUrl === 'string' ? [gatewayUrl] : gatewayUrl) {
    try {
      const res = await fetch(`${gateway}/health`, { signal: AbortSignal.timeout(3000) });
      if (res.status !== 200) missing.push(`gateway ${gateway} /health ${res.status} ${await res.text()}`);
    } catch (err) {
      missing.push(`gateway ${gateway} /health: ${(err as Error).message}`);
    }
  }
  try {
    const queues = [...broker.queues('rpc'), ...broker.queues('events')];
    for (const q of await broker.stats(queues)) {
      const service = broker.consumerServiceOf(q.queue);
      if (!service) continue;
      const want = fleet.instancesOf(service as Parameters<Fleet['instancesOf']>[0]);
      if (q.consumers !== want) missing.push(`${q.queue} consumers ${q.consumers}/${want}`);
    }
  } catch (err) {
    missing.push(`broker: ${(err as Error).message}`);
  }
  return { ready: missing.length === 0, missing };
}

/** Polls until ready; answers how long it took, or what was still missing when time ran out. */
export async function waitReady(
  fleet: Fleet,
  broker: BrokerInspector,
  gatewayUrl: string | readonly string[],
  timeoutMs: number,
): Promise<{ ok: boolean; ms: number; missing: string[] }> {
  const started = Date.now();
  let last: Readiness = { ready: false, missing: ['not checked'] };
  while (Date.now() - started < timeoutMs) {
    last = await readiness(fleet, broker, gatewayUrl);
    if (last.ready) return { ok: true, ms: Date.now() - started, missing: [] };
    await new Promise((r) => setTimeout(r, 250));
  }
  return { ok: false, ms: Date.now() - started, missing: last.missing };
}
