import { serviceNames, type ServiceName } from '@bo/contracts';
import { startGateway, type GatewayConfig, gatewayConfigSchema, createApiKey, type RunningGateway } from '@bo/gateway';
import {
  AmqpBus,
  MemoryBus,
  baseConfigSchema,
  createDb,
  createLogger,
  dbOptions,
  flushTracing,
  serviceConfigSchema,
  startService,
  startTracing,
  type BaseConfig,
  type Bus,
  type Knex,
  type RunningService,
} from '@bo/runtime';
import { DEVELOPMENT_DEFAULTS } from './dev-defaults';
import { serviceDefinitions } from './services';

export interface SystemOptions {
  databaseUrl: string;
  /** RabbitMQ URL; without it everything talks through one in-process bus. */
  amqpUrl?: string;
  busPrefix?: string;
  port?: number;
  logLevel?: string;
  services?: readonly ServiceName[];
  /** Extra settings (RPC_TIMEOUT_MS, EVENT_RETRY_BASE_MS ...) as environment variables would give them. */
  env?: Record<string, string>;
}

interface ServiceHandle {
  running: RunningService;
  bus: Bus;
  db: Knex;
}

/**
 * The whole system in one process: the gateway and every service, each with its own database pool
 * and, over RabbitMQ, its own connection, so one service can be stopped and started alone.
 */
export class System {
  private readonly handles = new Map<ServiceName, ServiceHandle>();
  private gateway?: RunningGateway;
  private gatewayBus?: Bus;
  private gatewayDb?: Knex;
  private readonly gatewayReplicas: Array<{ gateway: RunningGateway; bus: Bus; db: Knex }> = [];
  private sharedBus?: MemoryBus;
  private readonly amqpBuses: AmqpBus[] = [];
  readonly config: BaseConfig;
  private readonly gatewayConfig: GatewayConfig;
  private readonly env: Record<string, string>;

  constructor(private readonly opts: SystemOptions) {
    const env = {
      DATABASE_URL: opts.databaseUrl,
      AMQP_URL: opts.amqpUrl,
      BUS_PREFIX: opts.busPrefix,
      LOG_LEVEL: opts.logLevel,
      PORT: opts.port === undefined ? undefined : String(opts.port),
      HEALTH_SERVICES: (opts.services ?? serviceNames).join(','),
      ...DEVELOPMENT_DEFAULTS,
      ...opts.env,
    };
    const clean = Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== ''));
    this.env = clean;
    this.config = baseConfigSchema.parse(clean);
    this.gatewayConfig = gatewayConfigSchema.parse(clean);
  }

  get url(): string {
    if (!this.gateway) throw new Error('system not started');
    return this.gateway.url;
  }

  private async newBus(name: string): Promise<Bus> {
    const log = createLogger(name, this.config.LOG_LEVEL);
    if (!this.config.AMQP_URL) {
      this.sharedBus ??= new MemoryBus({ log, maxAttempts: this.config.EVENT_MAX_ATTEMPTS, retryBaseMs: this.config.EVENT_RETRY_BASE_MS });
      return this.sharedBus;
    }
    const bus = new AmqpBus({
      url: this.config.AMQP_URL,
      prefix: this.config.BUS_PREFIX,
      log,
      rpcPrefetch: this.config.RPC_PREFETCH,
      maxAttempts: this.config.EVENT_MAX_ATTEMPTS,
      retryBaseMs: this.config.EVENT_RETRY_BASE_MS,
      queueType: this.config.BUS_QUEUE_TYPE,
    });
    await bus.connect();
    this.amqpBuses.push(bus);
    return bus;
  }

  async start(): Promise<this> {
    // One tracer setup for the whole process (a no-op unless an endpoint is set or a test set it up).
    startTracing({ endpoint: this.config.OTEL_EXPORTER_OTLP_ENDPOINT });
    // Every consumer subscribes before any service publishes: the in-process bus keeps no queues.
    for (const name of this.opts.services ?? serviceNames) await this.startService(name, 'later');
    for (const h of this.handles.values()) h.running.begin();
    const log = createLogger('gateway', this.config.LOG_LEVEL);
    this.gatewayBus = await this.newBus('gateway');
    this.gatewayDb = createDb(this.config.DATABASE_URL, 'gateway', this.config.DB_POOL_MAX, dbOptions(this.config));
    this.gateway = await startGateway({ db: this.gatewayDb, bus: this.gatewayBus, log, config: this.gatewayConfig });
    return this;
  }

  /**
   * Another gateway over the same database and bus, on a free port, as a second replica behind a
   * load balancer would be (tests of what replicas share); answers its URL. stop() stops it first.
   */
  async startGatewayReplica(): Promise<string> {
    const log = createLogger('gateway', this.config.LOG_LEVEL);
    const bus = await this.newBus('gateway');
    const db = createDb(this.config.DATABASE_URL, 'gateway', this.config.DB_POOL_MAX, dbOptions(this.config));
    const gateway = await startGateway({ db, bus, log, config: { ...this.gatewayConfig, PORT: 0 } });
    this.gatewayReplicas.push({ gateway, bus, db });
    return gateway.url;
  }

  async startService(name: ServiceName, begin: 'now' | 'later' = 'now'): Promise<void> {
    if (this.handles.has(name)) return;
    const log = createLogger(name, this.config.LOG_LEVEL);
    const bus = await this.newBus(name);
    const db = createDb(this.config.DATABASE_URL, name, this.config.DB_POOL_MAX, dbOptions(this.config));
    const def = serviceDefinitions[name];
    const config = serviceConfigSchema(def).parse(this.env);
    const running = await startService(def, { db, bus, log, config }, { begin });
    this.handles.set(name, { running, bus, db });
  }

  /** Stops one service as its process would on SIGTERM (RabbitMQ mode only: in process the bus is shared). */
  async stopService(name: ServiceName): Promise<void> {
    const h = this.handles.get(name);
    if (!h) return;
    this.handles.delete(name);
    await h.running.stop();
    if (h.bus !== this.sharedBus) await h.bus.close();
    await h.db.destroy();
  }

  service(name: ServiceName): ServiceHandle | undefined {
    return this.handles.get(name);
  }

  async createApiKey(orgId: number): Promise<string> {
    if (!this.gatewayDb) throw new Error('system not started');
    return (await createApiKey(this.gatewayDb, orgId, 'system')).key;
  }

  /** Gateway first (no new requests), then each service drains its work and outbox. */
  async stop(): Promise<void> {
    for (const replica of this.gatewayReplicas.splice(0)) {
      await replica.gateway.stop();
      await replica.bus.stopConsuming();
      if (replica.bus !== this.sharedBus) await replica.bus.close();
      await replica.db.destroy();
    }
    await this.gateway?.stop();
    await this.gatewayBus?.stopConsuming();
    for (const name of [...this.handles.keys()]) await this.stopService(name);
    if (this.gatewayBus && this.gatewayBus !== this.sharedBus) await this.gatewayBus.close();
    await this.sharedBus?.close();
    await this.gatewayDb?.destroy();
    await flushTracing();
  }

  /** Test helper: deletes the queues and exchanges of this run's bus prefix. */
  async destroyTopology(): Promise<void> {
    for (const bus of this.amqpBuses) await bus.destroyTopology();
  }
}
