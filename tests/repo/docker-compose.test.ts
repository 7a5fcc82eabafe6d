/**
 * docker-compose.yml, checked by Compose itself where its binary is installed (.ci/run installs
 * Debian's docker-compose): the default topology and the `cluster` profile (3 RabbitMQ nodes,
 * PgBouncer, two replicas of every service and of the gateway, docs/scaling.md) are both accepted.
 * No engine is needed: `config` only reads and resolves the file.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');

function compose(args: string[]): { status: number | null; stdout: string; stderr: string } {
  for (const binary of ['docker-compose', '/usr/bin/docker-compose']) {
    const res = spawnSync(binary, args, { cwd: root, encoding: 'utf8', timeout: 60_000 });
    if (!res.error) return { status: res.status, stdout: res.stdout, stderr: res.stderr };
  }
  throw new Error('docker-compose is not installed: apt-get install -y docker-compose (.ci/run installs it)');
}

describe('docker-compose.yml', () => {
  it('is accepted by docker-compose config as it is', () => {
    const res = compose(['config', '-q']);
    expect([res.status, res.stderr]).toEqual([0, '']);
  });

  it('has a cluster profile: 3 RabbitMQ nodes, PgBouncer, two of every service and gateway, all on the cluster', () => {
    const args = ['--profile', 'cluster', '--env-file', 'deploy/cluster.env'];
    expect(compose([...args, 'config', '-q']).status).toBe(0);
    const services = compose([...args, 'config', '--services'])
      .stdout.trim()
      .split('\n')
      .sort();
    for (const s of ['rabbit1', 'rabbit2', 'rabbit3', 'pgbouncer']) expect(services).toContain(s);
    for (const s of ['partners', 'catalog', 'sales', 'invoicing', 'gateway'])
      expect(services).toEqual(expect.arrayContaining([s, `${s}-2`]));
    const resolved = compose([...args, 'config']).stdout;
    expect(resolved).toContain('BUS_QUEUE_TYPE: quorum');
    expect(resolved).toContain('DB_PREPARED_STATEMENTS: "off"');
    expect(resolved).toContain('postgres://postgres:postgres@pgbouncer:6432/invoicing');
  });

  it('ships no webhook key: the service gets none unless the environment gives WEBHOOKS_SECRET_KEYS, and refuses to start', () => {
    const resolved = compose(['config']).stdout;
    expect(resolved).toContain("WEBHOOKS_SECRET_KEYS: ''");
    expect(resolved).not.toMatch(/WEBHOOKS_SECRET_KEY:/);
  });
});
