import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { deleteTopology } from '@bo/runtime';
import { freePort, SERVING_NODE_FLAGS } from '@bo/launcher';
import { stopChild } from '../system';
import type { CeilingConfig, CeilingRoute } from './shared';

/** The running stand-in: its gateway's URL and token, and its two processes. */
export interface CeilingStandIn {
  base: string;
  token: string;
  pids: number[];
  readonly stop: () => Promise<void>;
}

/**
 * Starts the ceiling stand-in: a worker process (as a service) and an HTTP process (as the
 * gateway), each its own Node process as in the RabbitMQ mode, over the same broker.
 */
export async function startCeiling(amqpUrl: string, routes: CeilingRoute[]): Promise<CeilingStandIn> {
  const prefix = `bench_ceiling_${Date.now().toString(36)}`;
  const config: CeilingConfig = {
    amqpUrl,
    exchange: `${prefix}.rpc`,
    queue: `${prefix}.rpc.worker`,
    port: await freePort(),
    token: `bo_${randomBytes(32).toString('hex')}`,
    timeoutMs: 5000,
    prefetch: 32,
    routes,
    front: 'express',
  };
  const children: ChildProcess[] = [];
  const stop = async () => {
    await Promise.all(children.map((c) => stopChild(c, 'SIGTERM', 10_000)));
    await deleteTopology(amqpUrl, { queues: [config.queue], exchanges: [config.exchange] }).catch(() => undefined);
  };
  try {
    // The worker declares the queue and its bindings: requests published before would be returned.
    children.push(await forkReady(join(__dirname, 'worker.js'), config));
    children.push(await forkReady(join(__dirname, 'http.js'), config));
  } catch (err) {
    await stop();
    throw err;
  }
  return { base: `http://127.0.0.1:${config.port}`, token: config.token, pids: children.map((c) => c.pid as number), stop };
}

/** Forks a stand-in process, hands it its configuration, and waits until it says it is ready. */
export async function forkReady<C extends CeilingConfig>(file: string, config: C): Promise<ChildProcess> {
  const entry = `${basename(dirname(file))}/${basename(file)}`;
  // The role in the command line too, so BENCH_CPU_BY_PROCESS tells the floor's services apart (cpu.ts).
  const role = (config as { role?: string }).role;
  const child = fork(file, role ? [role] : [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], execArgv: [...SERVING_NODE_FLAGS] });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${entry} not ready within 30 s`));
    }, 30_000);
    child.once('exit', (code) => reject(new Error(`${entry} exited with ${code}`)));
    child.once('message', () => {
      clearTimeout(timer);
      resolve();
    });
    child.send(config);
  });
  return child;
}
