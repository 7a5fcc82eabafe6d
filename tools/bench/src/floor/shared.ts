import { createRequire } from 'node:module';
import type { CeilingConfig } from '../ceiling/shared';

/** The scenarios that have a floor, in the order they run. */
export const FLOOR_SCENARIOS = ['list-partners', 'create-partner', 'create-invoice', 'validate-invoice'] as const;
export type FloorScenario = (typeof FLOOR_SCENARIOS)[number];

/** The floor's services, each its own Node process as in the RabbitMQ mode. */
export const FLOOR_ROLES = ['partners', 'invoicing', 'catalog', 'sales'] as const;
export type FloorRole = (typeof FLOOR_ROLES)[number];

/** Routing keys of the floor's RPCs: the four the HTTP side sends, and the two services ask each other. */
export const RPC = {
  listPartners: 'floor.partners.list',
  createPartner: 'floor.partners.create',
  partnerCredit: 'floor.partners.credit',
  createInvoice: 'floor.invoicing.create',
  validateInvoice: 'floor.invoicing.validate',
  products: 'floor.catalog.products',
} as const;

/** The HTTP side's routing key of each scenario. */
export const SCENARIO_RPC: Record<FloorScenario, string> = {
  'list-partners': RPC.listPartners,
  'create-partner': RPC.createPartner,
  'create-invoice': RPC.createInvoice,
  'validate-invoice': RPC.validateInvoice,
};

/** The real API path of each scenario, whose contract checks the body where the bar's requirements are done (`required`). */
export const SCENARIO_PATH: Record<FloorScenario, string> = {
  'list-partners': '/crm/partners',
  'create-partner': '/crm/editpatner',
  'create-invoice': '/invoicing/invoice/new',
  'validate-invoice': '/invoicing/invoice/new',
};

/** Which RPCs each service answers. */
export const RPC_OF: Record<FloorRole, readonly string[]> = {
  partners: [RPC.listPartners, RPC.createPartner, RPC.partnerCredit],
  invoicing: [RPC.createInvoice, RPC.validateInvoice],
  catalog: [RPC.products],
  sales: [],
};

export const EVENT = {
  partnerCreated: 'partners.partner.created',
  invoiceCreated: 'invoicing.invoice.created',
  invoiceValidated: 'invoicing.invoice.validated',
} as const;

/** The event consumers the floor's scenarios reach, as in @bo/contracts' consumers (same names, services and events). */
export const CONSUMERS: ReadonlyArray<{ name: string; role: FloorRole; events: readonly string[] }> = [
  { name: 'partners.ledger', role: 'partners', events: [EVENT.invoiceValidated] },
  { name: 'sales.partner-directory', role: 'sales', events: [EVENT.partnerCreated] },
  { name: 'invoicing.partners', role: 'invoicing', events: [EVENT.partnerCreated] },
  { name: 'catalog.documents', role: 'catalog', events: [EVENT.invoiceValidated] },
];

/** What the bench hands each floor process: the ceiling's (the HTTP side is the ceiling's own) and the database and events. */
export interface FloorConfig extends CeilingConfig {
  /** The floor's database (schemas partners, invoicing, catalog, sales). */
  databaseUrl: string;
  /** Topic exchange of the events, as `<prefix>.events`. */
  events: string;
  prefix: string;
  /** Set for a service process; the HTTP process has none. */
  role?: FloorRole;
  /** PostgreSQL pool size per process (the services' 10). */
  poolSize: number;
  /** Event consumers' prefetch (the services' 16). */
  eventPrefetch: number;
  /**
   * The floor with what the bar requires of every write and the floor itself leaves out
   * (`--floor-required`): each write records its operation key with its reply in its statement,
   * invoice amounts in exact decimals by the kernel's rounding, outbox rows marked published in
   * batches; the HTTP side checks each body against the contract (CeilingRoute.validatedAs).
   */
  required?: boolean;
}

export const rpcQueue = (prefix: string, role: FloorRole) => `${prefix}.rpc.${role}`;
export const consumerQueue = (prefix: string, consumer: string) => `${prefix}.${consumer}`;

/** The very `pg` the runtime resolves (as the ceiling loads the gateway's Express and the bus's amqplib). */
export function loadPg(): typeof import('pg') {
  return createRequire(require.resolve('@bo/runtime'))('pg') as typeof import('pg');
}
