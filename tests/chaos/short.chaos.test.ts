import { runChaos } from './run-chaos';

/**
 * The short chaos run (`npm run chaos -- --short`) as part of `npm test`: the gateway and the four
 * services as separate processes (two instances of catalog and invoicing) under careful-client
 * load, with kill -9 of every process and outages made by the harness's TCP proxies only (the
 * shared PostgreSQL and RabbitMQ are never restarted: other test files use them meanwhile). Every
 * invariant of the suite must hold; the report is printed when one does not.
 */
describe('chaos (short): faults under load leave every invariant intact', () => {
  it('passes a short run', async () => {
    const { code, failed } = await runChaos(['--short']);
    expect(failed).toEqual([]);
    expect(code).toBe(0);
  }, 420_000);
});
