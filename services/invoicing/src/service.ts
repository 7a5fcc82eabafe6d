import type { ServiceDefinition } from '@bo/runtime';

/** Not built yet: answers pings only, so the gateway reports its operations as unavailable (503). */
export const invoicingService: ServiceDefinition = {
  name: 'invoicing',
  migrations: [],
  handlers: [],
};
