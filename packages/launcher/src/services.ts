import type { ServiceName } from '@bo/contracts';
import type { ServiceDefinition } from '@bo/runtime';
import { catalogService } from '@bo/catalog';
import { invoicingService } from '@bo/invoicing';
import { partnersService } from '@bo/partners';
import { salesService } from '@bo/sales';

/** Every service of the system; the launcher is the one place that knows them all. */
export const serviceDefinitions: Record<ServiceName, ServiceDefinition> = {
  partners: partnersService,
  catalog: catalogService,
  sales: salesService,
  invoicing: invoicingService,
};
