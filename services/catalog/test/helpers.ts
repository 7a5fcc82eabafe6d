import type { RpcReply } from '@bo/contracts';
import type { testing } from '@bo/runtime';

type Svc = testing.TestService;

/** The body of a successful reply; fails the test with the refusal otherwise. */
export function ok(reply: RpcReply): Record<string, any> {
  if (!reply.ok) throw new Error(`expected success, got ${reply.status} ${reply.code}: ${reply.message}`);
  return reply.body as Record<string, any>;
}

export function refusal(reply: RpcReply): { status: number; code: string; message: string; errors?: Array<{ field: string; message: string }> } {
  if (reply.ok) throw new Error(`expected a refusal, got ${JSON.stringify(reply.body)}`);
  return reply;
}

/** Every row of the catalog tables that an operation could touch, to prove a refusal changed nothing. */
export async function snapshot(svc: Svc): Promise<Record<string, unknown[]>> {
  const tables = ['products', 'variants', 'categories', 'warehouses', 'locations', 'skus', 'stock_quantities', 'stock_moves', 'stock_move_lines'];
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
