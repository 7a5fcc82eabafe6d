import * as amqplib from 'amqplib';
import { sales, type organization, type partners, type RpcReply } from '@bo/contracts';
import { AmqpBus, createLogger, type RequestMeta } from '@bo/runtime';
import * as testing from '@bo/testkit';

export type Reply = Awaited<ReturnType<testing.TestService['call']>>;

export const ok = (r: Reply): Record<string, any> => {
  if (!r.ok) throw new Error(`expected success, got ${r.status} ${r.code}: ${r.message}`);
  return r.body as Record<string, any>;
};

const salesOperations = new Map(sales.salesOperations.map((op) => [op.name as string, op]));

/**
 * `svc.call` that holds every successful reply to the operation's contract: the reply schema must
 * parse it and drop nothing (zod strips unknown keys, so a field the contract lacks shows as a diff).
 */
export function contractCall(svc: testing.TestService) {
  return async (operation: string, payload: Record<string, unknown>, orgId = 1, meta: Partial<RequestMeta> = {}): Promise<Reply> => {
    const reply = await svc.call(operation, payload, orgId, meta);
    const op = salesOperations.get(operation);
    if (!op) throw new Error(`${operation} is not a sales operation`);
    if (reply.ok) expect(op.reply.parse(reply.body)).toEqual(reply.body);
    return reply;
  };
}

/** Moved to @bo/runtime's testing helpers; kept under this name for the sales tests. */
export const { partnerRecord } = testing;

/** Stands in for the partners service's internal lookup; knows the partners put in `known`. */
export async function fakePartners(svc: testing.TestService) {
  const known = new Map<string, partners.PartnerRecord>();
  let calls = 0;
  const profiles = new Map<number, organization.ProfileRecord>();
  await svc.client.serve(
    'partners',
    ['partners.partner.get', 'partners.document.parties'],
    async (op, payload, meta): Promise<RpcReply> => {
      calls++;
      const id = Number((payload as { partner_id: number }).partner_id);
      const p = known.get(`${meta.orgId}:${id}`);
      // The profile is what a sent quotation freezes beside its partner (an empty one unless a test sets it).
      if (op === 'partners.document.parties') {
        const organization = profiles.get(meta.orgId) ?? testing.profileRecord(meta.orgId);
        return { ok: true, status: 200, body: { message: 'Document parties', organization, partner: p ?? null, credit: null } };
      }
      return p
        ? { ok: true, status: 200, body: { message: 'Partner found', partner: p } }
        : { ok: false, status: 400, code: 'not_found', message: `Partner ${id} not found` };
    },
  );
  return {
    add: (p: partners.PartnerRecord) => void known.set(`${p.orgid}:${p.id}`, p),
    setProfile: (p: organization.ProfileRecord) => void profiles.set(p.org_id, p),
    /** Calls to the stand-in: partner lookups and document parties. */
    calls: () => calls,
  };
}

export interface FakeInvoice {
  id: number;
  orgid: number;
  invoicenumber: string;
  invoicetype: string;
  partner: number;
  invoicestatus: string;
  subtotal: number;
  tax_amount: number;
  invoicetotal: number;
}

/**
 * Stands in for invoicing.invoice.create_from_source: one invoice per (org, sourcetype, sourceid),
 * a repeat answers it with created: false, like the real operation.
 */
export async function fakeInvoicing(svc: testing.TestService, bus: AmqpBus = svc.client) {
  const invoices = new Map<string, FakeInvoice>();
  const requests: Array<Record<string, any>> = [];
  const state = { nextId: 1, delayMs: 0, refuse: undefined as undefined | { code: 'validation_failed' | 'not_found'; message: string } };
  await bus.serve('invoicing', ['invoicing.invoice.create_from_source'], async (_op, payload, meta): Promise<RpcReply> => {
    const req = payload as Record<string, any>;
    requests.push(req);
    if (state.refuse) return { ok: false, status: 400, ...state.refuse };
    const key = `${meta.orgId}:${req.sourcetype}:${req.sourceid}`;
    let invoice = invoices.get(key);
    const created = !invoice;
    if (!invoice) {
      const id = state.nextId++;
      invoice = {
        id,
        orgid: meta.orgId,
        invoicenumber: `INV-${String(id).padStart(5, '0')}`,
        invoicetype: req.invoicetype,
        partner: Number(req.partner),
        invoicestatus: 'draft',
        subtotal: Number(req.subtotal),
        tax_amount: Number(req.tax_amount),
        invoicetotal: Number(req.invoicetotal),
      };
      invoices.set(key, invoice);
    }
    // Slow answers come after the work is done, as a real timeout would leave it.
    if (state.delayMs) await new Promise((r) => setTimeout(r, state.delayMs));
    return { ok: true, status: 200, body: { message: created ? 'Invoice created' : 'Invoice already exists', created, invoice } };
  });
  return { invoices, requests, state };
}

/** A bus connection of its own, so a fake service on it can be taken away (see removeService). */
export async function separateBus(svc: testing.TestService): Promise<AmqpBus> {
  const bus = new AmqpBus({ url: svc.amqpUrl, prefix: svc.prefix, log: createLogger('fake', 'silent') });
  await bus.connect();
  return bus;
}

/**
 * Takes a faked service away as if it had never been deployed: its connection closes and its RPC
 * queue goes, so requests to it are unroutable. (The bus's destroyTopology would also delete the
 * exchanges every other connection of the test uses.)
 */
export async function removeService(svc: testing.TestService, bus: AmqpBus, service: string): Promise<void> {
  await bus.close();
  const conn = await amqplib.connect(svc.amqpUrl);
  try {
    await (await conn.createChannel()).deleteQueue(`${svc.prefix}.rpc.${service}`);
  } finally {
    await conn.close();
  }
}

export const waitFor = (check: () => boolean | Promise<boolean>, timeoutMs?: number) => testing.waitUntil(check, { timeoutMs });

export const daysFromToday = (days: number): string => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
