import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Options } from 'amqplib';
import { rpcRequestProperties } from '@bo/runtime/dist/bus/rpc-properties';

/**
 * The stand-in uses the very Express the gateway resolves and the very amqplib the bus resolves,
 * loaded through their packages, so "same framework and client, same versions" holds by
 * construction (and the launcher declares no copy of its own).
 */
export function loadExpress(): typeof import('express') {
  return createRequire(require.resolve('@bo/gateway'))('express') as typeof import('express');
}

export function loadAmqplib(): typeof import('amqplib') {
  return createRequire(require.resolve('@bo/runtime'))('amqplib') as typeof import('amqplib');
}

/** What the bench hands the stand-in's two processes (their first IPC message). */
export interface CeilingConfig {
  amqpUrl: string;
  /** Direct exchange the requests go through, as `<prefix>.rpc` in the real system. */
  exchange: string;
  /** The worker's queue, as a service's `<prefix>.rpc.<service>`. */
  queue: string;
  port: number;
  token: string;
  /** RPC_TIMEOUT_MS of the real gateway: expiration of each request and the caller's timer. */
  timeoutMs: number;
  /** RPC_PREFETCH of the real services. */
  prefetch: number;
  routes: CeilingRoute[];
  /**
   * The HTTP side's server: `express` (the ceiling: a minimal Express 5 app) or `node` (node's http
   * with the same body reader the gateway serves operations with: the floor, which stands for the
   * least the design needs).
   */
  front: 'express' | 'node';
}

export interface CeilingRoute {
  /** HTTP path of the stand-in gateway. */
  path: string;
  /** Routing key, as an operation name in the real system. */
  routingKey: string;
  /** The body the worker replies, as large as the real service's reply of that scenario step. */
  reply: string;
  /**
   * The real API path whose contract checks each body first, as the gateway does (a 400 naming the
   * field), and which then gets an operation key as the gateway makes one: the floor with the bar's
   * requirements only. Absent: neither.
   */
  validatedAs?: string;
}

/** Waits for the configuration the bench sends, and tells it when this process is ready. */
export function receiveConfig(): Promise<CeilingConfig> {
  if (!process.send) throw new Error('this process is started by the benchmark (with an IPC channel)');
  return new Promise((resolve) => process.once('message', (config) => resolve(config as CeilingConfig)));
}

export function ready(): void {
  process.send?.('ready');
}

/** Ends the process when the bench says so or goes away. */
export function exitWith(close: () => Promise<void>): void {
  const stop = () => void close().finally(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  process.once('disconnect', stop);
}

/** The real bus's connection: Nagle off and 10 s heartbeats. */
export function connectionUrl(url: string): string {
  return /[?&]heartbeat=/.test(url) ? url : `${url}${url.includes('?') ? '&' : '?'}heartbeat=10`;
}

/**
 * The real bus client's RPC request properties (direct reply-to, expiration, deadline...), from its
 * own module alone: the runtime's index would also start its metrics in the stand-in's processes.
 */
export { REPLY_TO } from '@bo/runtime/dist/bus/rpc-properties';

/** The properties a stand-in publishes an RPC request with: the real client's, with a request id of its own. */
export function rpcRequestOptions(
  routingKey: string,
  correlationId: string,
  timeoutMs: number,
  headers: Record<string, unknown>,
): Options.Publish {
  return rpcRequestProperties(routingKey, correlationId, timeoutMs, { ...headers, 'x-request-id': randomUUID() });
}
