import type { ServiceDefinition } from '@bo/runtime';
import { deliveriesConsumer } from './delivery/deliveries.consumer';
import { Dispatcher } from './delivery/dispatcher';
import { listAttemptsHandler } from './delivery/list-attempts.handler';
import { listDeliveriesHandler } from './delivery/list-deliveries.handler';
import { logRetention } from './delivery/log-retention';
import { redeliverHandler } from './delivery/redeliver.handler';
import { routesReconcile } from './delivery/routes';
import { createEndpointHandler } from './endpoint/create-endpoint.handler';
import { deleteEndpointHandler } from './endpoint/delete-endpoint.handler';
import { listEndpointsHandler } from './endpoint/list-endpoints.handler';
import { rotateSecretHandler } from './endpoint/rotate-secret.handler';
import { testEndpointHandler } from './endpoint/test-endpoint.handler';
import { updateEndpointHandler } from './endpoint/update-endpoint.handler';
import { webhooksMigrations } from './migrations';
import { webhookSettings, webhookSettingsSchema } from './settings';

/** Webhook endpoints per organization and the delivery of every event to them (docs/webhooks.md). */
export const webhooksService: ServiceDefinition = {
  name: 'webhooks',
  settings: webhookSettingsSchema,
  migrations: webhooksMigrations,
  handlers: [
    createEndpointHandler,
    listEndpointsHandler,
    updateEndpointHandler,
    deleteEndpointHandler,
    rotateSecretHandler,
    testEndpointHandler,
    listDeliveriesHandler,
    listAttemptsHandler,
    redeliverHandler,
  ],
  subscriptions: [deliveriesConsumer],
  background: (deps) => {
    const settings = webhookSettings(deps.config);
    const log = deps.log.child({ task: 'webhook-dispatcher' });
    return [
      new Dispatcher(deps.db, log, deps.relay, settings),
      logRetention(deps.db, deps.log, settings.WEBHOOKS_LOG_RETENTION_DAYS),
      routesReconcile(deps.db, deps.bus, deps.log, settings.WEBHOOKS_ROUTES_RECONCILE_MS, settings.WEBHOOKS_BROKER_TIMEOUT_MS),
    ];
  },
};
