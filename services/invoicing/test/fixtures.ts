import type { organization, partners, RpcReply } from '@bo/contracts';
import * as testing from '@bo/testkit';
import { invoicingService } from '../src/service';

export interface FakePartner {
  org: number;
  id: number;
  partnername: string;
  credit_limit: number;
  balance: number;
  /** `both` unless said: these tests bill and buy from the same stand-in partners. */
  partner_type?: 'customer' | 'vendor' | 'both';
  /** More of the partner record (address, country, tax number, currency…), as the partners service answers it. */
  record?: Partial<partners.PartnerRecord>;
}

/** Stands in for the partners service: answers its lookup and balance RPCs from a table the test controls. */
export async function startWithFakePartners(partnersTable: FakePartner[], env: Record<string, string> = {}) {
  const started = await testing.startTestService(invoicingService, env);
  // Lines name catalog products: a stand-in catalog answers them, and stops with the service.
  const catalog = await testing.startCatalogStub(started);
  const svc: testing.TestService = { ...started, stop: async () => (await catalog.stop(), started.stop()) };
  const calls: string[] = [];
  /** How long the stand-in takes to answer a balance request, to play a slow partners service. */
  const state = { balanceDelayMs: 0, profiles: new Map<number, organization.ProfileRecord>(), profileDown: false };
  await svc.client.serve(
    'partners',
    ['partners.partner.get', 'partners.partner.balance', 'partners.document.parties', 'partners.organization.get'],
    async (operation, payload, meta): Promise<RpcReply> => {
      calls.push(operation);
      if (operation === 'partners.organization.get') {
        const organization = state.profiles.get(meta.orgId) ?? testing.profileRecord(meta.orgId);
        return { ok: true, status: 200, body: { message: 'Organization profile', organization } };
      }
      const { partner_id, include_credit } = payload as { partner_id: number; include_credit?: boolean };
      const p = partnersTable.find((x) => x.org === meta.orgId && x.id === Number(partner_id));
      if (operation === 'partners.document.parties') {
        if (state.profileDown) return { ok: false, status: 503, code: 'service_unavailable', message: 'partners is down' };
        if (include_credit && state.balanceDelayMs) await new Promise((r) => setTimeout(r, state.balanceDelayMs));
        // Validation freezes the organization's profile beside the partner (an empty one unless a test sets it).
        const organization = state.profiles.get(meta.orgId) ?? testing.profileRecord(meta.orgId);
        const credit =
          p && include_credit
            ? {
                balance: p.balance,
                receivable: p.balance,
                credit_limit: p.credit_limit,
                available_credit: Math.round((p.credit_limit - p.balance) * 100) / 100,
              }
            : null;
        return { ok: true, status: 200, body: { message: 'Document parties', organization, partner: p ? recordOf(p) : null, credit } };
      }
      if (operation === 'partners.partner.balance' && state.balanceDelayMs) await new Promise((r) => setTimeout(r, state.balanceDelayMs));
      if (!p) return { ok: false, status: 400, code: 'not_found', message: `Partner ${partner_id} not found` };
      const record = recordOf(p);
      if (operation === 'partners.partner.get') return { ok: true, status: 200, body: { message: 'Partner found', partner: record } };
      const view = {
        id: p.id,
        partnername: p.partnername,
        display_name: p.partnername,
        email: null,
        phone: null,
        balance: p.balance,
        receivable: p.balance,
        committed: 0,
        credit_limit: p.credit_limit,
        available_credit: Math.round((p.credit_limit - p.balance) * 100) / 100,
        exposure: p.balance,
        currency: null,
      };
      return { ok: true, status: 200, body: { message: 'Partner balance retrieved successfully', partner: view } };
    },
  );
  return { svc, calls, state, catalog };
}

const recordOf = (p: FakePartner) =>
  testing.partnerRecord(p.org, p.id, {
    partnername: p.partnername,
    display_name: p.partnername,
    partner_type: p.partner_type ?? 'both',
    credit_limit: p.credit_limit,
    balance: p.balance,
    currency: null,
    ...p.record,
  });

/** 5 x 50 less 10 %, 15 % tax: 225.00 + 33.75 = 258.75 (spec 2.6). */
export const specLine = { product_id: 7, product_name: 'Widget', quantity: 5, price: 50, discount: 10, tax_rate: 15, tax_included: false };
/** 115 with 15 % tax included: 100.00 + 15.00. */
export const taxIncludedLine = { product_id: '8', quantity: 1, price: 115, tax_rate: 15, tax_included: true };
/** 3 x 0.1 must be exactly 0.30. */
export const tenthsLine = { product_id: '9', quantity: 3, price: 0.1, tax_rate: 0, tax_included: false };

export const body = (reply: RpcReply): Record<string, any> => {
  if (!reply.ok) throw new Error(`expected success, got ${reply.status} ${reply.code}: ${reply.message}`);
  return reply.body;
};

/**
 * Resolves true once a posting's statement (one that holds the organization's settings) waits for a
 * row lock, false if `reply` settled first: a test holding a document's lock sees the write reach it.
 */
export async function postingWaitsForLock(svc: testing.TestService, reply: Promise<unknown>): Promise<boolean> {
  const settled = Symbol('settled');
  const first = await Promise.race([
    reply.then(() => settled),
    testing.waitUntil(async () => {
      const { rows } = await svc.db.raw<{ rows: unknown[] }>(
        `select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query ilike '%organization_settings_held%'`,
      );
      return rows.length > 0;
    }),
  ]);
  return first !== settled;
}
