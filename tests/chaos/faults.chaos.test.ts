import { runChaos } from './run-chaos';

/**
 * The two short chaos runs of `npm test`, one after the other in one file: each starts a dozen
 * processes (the cluster run three RabbitMQ nodes besides), and run side by side on a 2-core machine
 * they starved each other past any bound. The run sequencer (tests/support/jest/sequencer.js) starts
 * this file first, so the other worker runs the rest of the suite meanwhile.
 *
 * Each run has a deadline of its own (`--deadline`): a run still going then stops where it is,
 * tears down what it started and fails with its report naming the phase, so a slow or stuck run
 * answers with evidence, inside jest's timeout. The deadlines are well above what the runs took in
 * the suite's recent full runs, beside other work (short: 116 to 208 s, cluster: 164 to 298 s).
 */
describe('chaos: faults under load leave every invariant intact', () => {
  /**
   * `npm run chaos -- --short`: the gateway and the four services as separate processes (two
   * instances of catalog and invoicing) under careful-client load, with kill -9 of every process and
   * outages made by the harness's TCP proxies only (the shared PostgreSQL and RabbitMQ are never
   * restarted: other test files use them meanwhile).
   */
  it('passes a short run', async () => {
    const { code, failed } = await runChaos(['--short', '--deadline', '360']);
    expect(failed).toEqual([]);
    expect(code).toBe(0);
  }, 420_000);

  /**
   * `npm run chaos -- --cluster --short`: a 3-node RabbitMQ cluster of the run's own
   * (scripts/rabbitmq-cluster.sh, ports 5682-5684, the shared broker untouched) with quorum queues,
   * two replicas of every service and of the gateway, PostgreSQL behind a PgBouncer of the run's own
   * in transaction mode; kill -9 of one replica of each, of a RabbitMQ node (started again, it
   * rejoins) and of PgBouncer (restarted).
   */
  it('passes a short run on a cluster', async () => {
    const { code, failed } = await runChaos(['--cluster', '--short', '--deadline', '540']);
    expect(failed).toEqual([]);
    expect(code).toBe(0);
  }, 600_000);
});
