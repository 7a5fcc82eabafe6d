import { catalog, type Operation, type RpcReply } from '@bo/contracts';
import type * as testing from '@bo/testkit';

type Svc = testing.TestService;

/** The body of a successful reply; fails the test with the refusal otherwise. */
export function ok(reply: RpcReply): Record<string, any> {
  if (!reply.ok) throw new Error(`expected success, got ${reply.status} ${reply.code}: ${reply.message}`);
  return reply.body as Record<string, any>;
}

export function refusal(reply: RpcReply): {
  status: number;
  code: string;
  message: string;
  errors?: Array<{ field: string; message: string }>;
} {
  if (reply.ok) throw new Error(`expected a refusal, got ${JSON.stringify(reply.body)}`);
  return reply;
}

/** Every row of the catalog tables that an operation could touch, to prove a refusal changed nothing. */
export async function snapshot(svc: Svc): Promise<Record<string, unknown[]>> {
  const tables = [
    'products',
    'variants',
    'categories',
    'warehouses',
    'locations',
    'skus',
    'stock_quantities',
    'stock_moves',
    'stock_move_lines',
  ];
  const out: Record<string, unknown[]> = {};
  for (const t of tables) out[t] = await svc.db(t).select('*').orderByRaw('1, 2');
  // The relay marks rows published in the background; what matters is which events exist.
  out.outbox = await svc.db('outbox').select('event_id', 'type', 'envelope').orderBy('id');
  return out;
}

export async function defaultLocationId(svc: Svc, org = 1): Promise<string> {
  const body = ok(await svc.call('catalog.location.list', { action: 'list_locations' }, org));
  return body.locations.find((l: { is_default: boolean }) => l.is_default).location_id;
}

const replySchemas = new Map<string, Operation['reply']>(catalog.catalogOperations.map((op) => [op.name, op.reply]));

/**
 * The service with every successful reply held to its operation's published reply schema. Parsing
 * strips keys the schema does not know, so comparing the parsed reply with the real one also
 * catches fields a handler sends but the contract (and so the OpenAPI document) does not show.
 */
export function checkingReplies(svc: Svc): Svc {
  return {
    ...svc,
    async call(operation, payload, orgId, meta) {
      const reply = await svc.call(operation, payload, orgId, meta);
      if (reply.ok) expectToMatchSchema(replySchemas.get(operation), reply.body, `reply of ${operation}`);
      return reply;
    },
  };
}

/** Every event the service wrote to its outbox, held to the data schema of its type. */
export async function expectOutboxToMatchContracts(svc: Svc): Promise<number> {
  const rows: Array<{ type: string; envelope: { data: unknown } }> = await svc.db('outbox').select('type', 'envelope');
  for (const row of rows) {
    expectToMatchSchema(catalog.catalogEvents.find((e) => e.type === row.type)?.data, row.envelope.data, `event ${row.type}`);
  }
  return rows.length;
}

function expectToMatchSchema(
  schema: { safeParse(v: unknown): { success: boolean; data?: unknown; error?: unknown } } | undefined,
  value: unknown,
  what: string,
): void {
  if (!schema) throw new Error(`${what}: no schema in the catalog contracts`);
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new Error(`${what} breaks its contract: ${JSON.stringify(parsed.error)}\n${JSON.stringify(value)}`);
  // JSON round trip: both sides as they travel, so an undefined key counts as absent on both
  if (JSON.stringify(sortKeys(parsed.data)) !== JSON.stringify(sortKeys(value))) {
    throw new Error(
      `${what} carries fields its contract does not show:\n${JSON.stringify(value)}\nvs contract\n${JSON.stringify(parsed.data)}`,
    );
  }
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
    );
  return v;
}
