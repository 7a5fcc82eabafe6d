import { LINES } from '../fixtures';
import { documentAmounts, lineAmounts, partnerPageReply } from './format';
import { CONSUMERS, FLOOR_SCENARIOS, RPC_OF, SCENARIO_RPC } from './shared';
import { consumers } from '@bo/contracts';

/** The floor's pure parts; nothing here starts a process or measures anything. */
describe('benchmark floor', () => {
  it("wraps the records PostgreSQL wrote in the partners service's list reply, as they are, with the first page's pagination", () => {
    const records = '[{"id":50,"orgid":1,"balance":430,"created_at":"2026-11-22T10:00:00"},{"id":49,"orgid":1}]';
    const text = partnerPageReply(records, 50, 25);
    expect(text).toContain(`"partners":${records},`);
    expect(JSON.parse(text)).toEqual({
      message: 'Partners retrieved successfully',
      partners: JSON.parse(records) as unknown,
      pagination: { page_number: 1, page_size: 25, total_items: 50, total_pages: 2, has_next: true, has_previous: false },
    });
    expect(JSON.parse(partnerPageReply('[]', 0, 25))).toMatchObject({
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
