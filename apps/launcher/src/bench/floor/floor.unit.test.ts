import { LINES } from '../fixtures';
import { documentAmounts, lineAmounts, partnerPageReply, type PartnerRow } from './format';
import { CONSUMERS, FLOOR_SCENARIOS, RPC_OF, SCENARIO_RPC } from './shared';
import { consumers } from '@bo/contracts';

/** The floor's pure parts; nothing here starts a process or measures anything. */
describe('benchmark floor', () => {
  const row = (id: number, total = 50): PartnerRow => ({
    id,
    org_id: 1,
    partnername: `Seed ${id}`,
    display_name: `Seed ${id}`,
    partner_type: 'customer',
    email: `seed${id}@example.com`,
    phone: '+1 555 0100',
    address: null,
    address_line1: null,
    address_line2: null,
    city: null,
    postal_code: null,
    region: null,
    country: null,
    tax_number: null,
    credit_limit: '0.00',
    balance: '430.00',
    committed: '0.00',
    currency: 'USD',
    payment_terms: null,
    contact_person: null,
    notes: null,
    version: 1,
    created_at: new Date('2026-11-22T10:00:00.123Z'),
    updated_at: new Date('2026-11-22T11:00:00.456Z'),
    total: String(total),
  });

  it("formats a page of partners as the partners service's list reply (numbers as numbers, seconds-precision UTC times, pagination)", () => {
    const reply = JSON.parse(partnerPageReply([row(50), row(49)], 25)) as {
      message: string;
      partners: Array<Record<string, unknown>>;
      pagination: Record<string, unknown>;
    };
    expect(reply.message).toBe('Partners retrieved successfully');
    expect(reply.partners).toHaveLength(2);
    expect(reply.partners[0]).toMatchObject({
      id: 50,
      orgid: 1,
      balance: 430,
      credit_limit: 0,
      created_at: '2026-11-22T10:00:00',
      updated_at: '2026-11-22T11:00:00',
    });
    expect(reply.partners[0]).not.toHaveProperty('total');
    expect(reply.partners[0]).not.toHaveProperty('org_id');
    expect(reply.pagination).toEqual({
      page_number: 1,
      page_size: 25,
      total_items: 50,
      total_pages: 2,
      has_next: true,
      has_previous: false,
    });
    expect(JSON.parse(partnerPageReply([], 25))).toMatchObject({
      message: 'No partners found',
      partners: [],
      pagination: { total_items: 0, has_next: false },
    });
  });

  it("computes the bench's lines as an invoice stores them: discount, tax added, tax taken out of a tax-included price", () => {
    expect(lineAmounts(LINES[0]!)).toEqual({ subtotal: 99, tax: 14.85, total: 113.85 });
    expect(lineAmounts(LINES[1]!)).toEqual({ subtotal: 100, tax: 15, total: 115 });
    expect(lineAmounts(LINES[2]!)).toEqual({ subtotal: 216, tax: 0, total: 216 });
    expect(documentAmounts(LINES)).toMatchObject({ subtotal: 415, tax: 29.85, total: 444.85 });
    expect(documentAmounts([])).toMatchObject({ lines: [], subtotal: 0, tax: 0, total: 0 });
  });

  it('routes each floor scenario to a service that answers it, and consumes as the real consumers do', () => {
    for (const s of FLOOR_SCENARIOS) expect(Object.values(RPC_OF).flat()).toContain(SCENARIO_RPC[s]);
    for (const c of CONSUMERS) {
      const real = consumers.find((r) => r.name === c.name);
      expect(real?.service).toBe(c.role);
      for (const e of c.events) expect(real?.events).toContain(e);
    }
  });
});
