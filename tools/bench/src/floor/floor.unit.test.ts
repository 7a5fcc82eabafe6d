import { LINES } from '../fixtures';
import { documentAmounts, exactDocumentAmounts, lineAmounts, partnerPageReply } from './format';
import { CONSUMERS, FLOOR_SCENARIOS, RPC_OF, SCENARIO_PATH, SCENARIO_RPC } from './shared';
import { CREATE_INVOICE, CREATE_PARTNER, VALIDATE_INVOICE, keyed } from './sql';
import { consumers, resolveOperation } from '@bo/contracts';

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

  it("computes the same lines in exact decimals for the floor with the bar's requirements, as text", () => {
    expect(exactDocumentAmounts(LINES)).toEqual({
      lines: [
        { subtotal: '99.00', tax: '14.85', total: '113.85' },
        { subtotal: '100.00', tax: '15.00', total: '115.00' },
        { subtotal: '216.00', tax: '0.00', total: '216.00' },
      ],
      subtotal: '415.00',
      tax: '29.85',
      total: '444.85',
    });
    // Where floats drift: 0.1 + 0.2 of a price, and a half cent rounded up.
    expect(exactDocumentAmounts([{ product_id: 1, quantity: 3, price: 0.1 }]).total).toBe('0.30');
    expect(exactDocumentAmounts([{ product_id: 1, quantity: 1, price: 1.005 }]).total).toBe('1.01');
  });

  it("records each write's operation key with its reply in the write's own statement, after its parameters", () => {
    const text = keyed(CREATE_INVOICE, 'invoicing', 9);
    expect(text).toContain('ob as (\ninsert into invoicing.outbox');
    expect(text).toContain('returning org_id, envelope::text as envelope');
    expect(text).toContain('insert into invoicing.operation_keys (org_id, key, reply) select org_id, $10::uuid, $11 from ob');
    expect(text.trimEnd().endsWith('select envelope from ob')).toBe(true);
    expect(keyed(CREATE_PARTNER, 'partners', 9)).toContain('$10::uuid, $11');
    expect(keyed(VALIDATE_INVOICE, 'invoicing', 3)).toContain('$4::uuid, $5');
    expect(() => keyed(CREATE_INVOICE, 'partners', 9)).toThrow(/not a floor write/);
    // Each write is checked against its real operation's contract.
    for (const s of ['create-partner', 'create-invoice'] as const)
      expect(resolveOperation(SCENARIO_PATH[s], {}).kind).not.toBe('unknown_path');
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
