import { runChaos } from './run-chaos';

/**
 * The short cluster run (`npm run chaos -- --cluster --short`) as part of `npm test`: a 3-node
 * RabbitMQ cluster of the run's own (scripts/rabbitmq-cluster.sh, ports 5682-5684, the shared broker
 * untouched) with quorum queues, two replicas of every service and of the gateway, PostgreSQL behind
 * a PgBouncer of the run's own in transaction mode; kill -9 of one replica of each, of a RabbitMQ
 * node (started again, it rejoins) and of PgBouncer (restarted), under careful-client load. Every
 * invariant of the suite must hold.
 */
describe('chaos (cluster, short): replicas, a RabbitMQ cluster and PgBouncer under faults', () => {
  it('passes a short cluster run', async () => {
    const { code, failed } = await runChaos(['--cluster', '--short']);
    expect(failed).toEqual([]);
    expect(code).toBe(0);
  }, 420_000);
});
