import { join } from 'node:path';
import { repoRoot } from '@bo/launcher';
import { runCommand } from './servers';

/**
 * The run's own 3-node RabbitMQ cluster (scripts/rabbitmq-cluster.sh): started for a --cluster run,
 * always stopped and removed at its end; a node can be killed -9 and started again, rejoining.
 */
export interface RabbitCluster {
  /** AMQP_URL naming the three nodes. */
  url: string;
  kill(node: number): Promise<void>;
  startNode(node: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startRabbitCluster(dir: string, port: number, log: (line: string) => void): Promise<RabbitCluster> {
  const script = join(repoRoot, 'scripts', 'rabbitmq-cluster.sh');
  const env = `RABBIT_CLUSTER_DIR='${dir}' RABBIT_CLUSTER_PORT=${port}`;
  // Three Erlang VMs booting on a busy machine take minutes, not seconds.
  const run = (args: string, timeoutMs = 600_000) => runCommand(`${env} '${script}' ${args}`, timeoutMs);
  const cluster: RabbitCluster = {
    url: '',
    kill: (node) => run(`kill ${node}`).then(() => undefined),
    startNode: (node) => run(`start-node ${node}`).then(() => undefined),
    stop: () => run('stop', 90_000).then(() => undefined),
  };
  const started = Date.now();
  try {
    const out = await run('start');
    cluster.url =
      out
        .split('\n')
        .filter((l) => l.startsWith('amqp://'))
        .pop() ?? '';
    if (!cluster.url) throw new Error(`the cluster script printed no URL:\n${out}`);
  } catch (err) {
    await cluster.stop().catch(() => undefined);
    throw err;
  }
  log(`RabbitMQ cluster of 3 nodes up in ${((Date.now() - started) / 1000).toFixed(1)}s: ${cluster.url.replace(/:[^:@/]+@/g, ':***@')}`);
  return cluster;
}
