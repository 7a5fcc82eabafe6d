import { randomUUID } from 'node:crypto';
import { serviceNames, type ServiceName } from '@bo/contracts';
import { AmqpBus, createLogger, pingOperation } from '@bo/runtime';

/**
 * Container health check of a service process: `node apps/launcher/dist/ping.js <service>` sends
 * the service's ping over RabbitMQ and exits 0 only if an instance answered within 2 s.
 */
async function main(service: string | undefined): Promise<number> {
  if (!serviceNames.includes(service as ServiceName)) {
    console.error(`usage: ping.js <${serviceNames.join('|')}>`);
    return 2;
  }
  const url = process.env.AMQP_URL;
  if (!url) {
    console.error('AMQP_URL is not set');
    return 2;
  }
  const bus = new AmqpBus({ url, prefix: process.env.BUS_PREFIX || 'bo', log: createLogger('ping', 'silent'), connectTimeoutMs: 2000 });
  try {
    await bus.connect();
    const reply = await bus.request(pingOperation(service as string), {}, { orgId: 0, requestId: randomUUID() }, 2000);
    return reply.ok ? 0 : 1;
  } catch (err) {
    console.error(`${service}: ${(err as Error).message}`);
    return 1;
  } finally {
    await bus.close();
  }
}

main(process.argv[2]).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
