import type { ServiceName } from '@bo/contracts';
import { topologyNames, type ServiceDefinition } from '@bo/runtime';
import { catalogService } from '@bo/catalog';
import { invoicingService } from '@bo/invoicing';
import { partnersService } from '@bo/partners';
import { salesService } from '@bo/sales';
import { webhooksService } from '@bo/webhooks';

/** Every service of the system; the launcher is the one place that knows them all. */
export const serviceDefinitions: Record<ServiceName, ServiceDefinition> = {
  partners: partnersService,
  catalog: catalogService,
  sales: salesService,
  invoicing: invoicingService,
  webhooks: webhooksService,
};

/**
 * Every queue and exchange the whole system declares under a prefix. The retry queues are named by
 * their delay, so the EVENT_RETRY_BASE_MS the system ran with is needed to name them all.
 */
export function systemTopology(prefix: string, retryBaseMs = Number(process.env.EVENT_RETRY_BASE_MS ?? 1000)) {
  const defs = Object.values(serviceDefinitions);
  return topologyNames(
    prefix,
    defs.map((d) => d.name),
    defs.flatMap((d) => (d.subscriptions ?? []).map((s) => s.name)),
    { retryBaseMs },
  );
}
