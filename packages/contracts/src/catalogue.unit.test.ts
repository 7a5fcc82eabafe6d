import { knownPaths, operations, operationsByName, resolveCandidates, resolveOperation, rpcTimeoutOf, type Resolution } from './catalogue';
import { describeSelector, HEAVY_COST, operationCost, READ_COST, RENDER_TIMEOUT_MS, WRITE_COST } from './operation';
import { buildOpenApi } from './openapi';

function opName(path: string, body: Record<string, unknown>): string {
  const r = resolveOperation(path, body);
  return r.kind === 'operation' ? r.operation.name : r.kind;
}

describe('operation catalogue', () => {
  it('routes the partner paths by action and by the presence of partner_id', () => {
    expect(opName('/crm/partners', {})).toBe('partners.partner.list');
    expect(opName('/crm/partners/', { partner_id: 3 })).toBe('partners.partner.balance');
    expect(opName('/crm/editpatner', { action: 'create' })).toBe('partners.partner.create');
    expect(opName('/crm/editpatner/', { action: 'edit' })).toBe('partners.partner.edit');
    expect(opName('/crm/editpatner', { action: 'delete' })).toBe('partners.partner.delete');
  });

  it('names the allowed actions for an unknown or missing action', () => {
    const unknown = resolveOperation('/crm/editpatner', { action: 'merge' });
    expect(unknown).toMatchObject({ kind: 'unknown_action', allowed: ['create', 'edit', 'delete'] });
    const missing = resolveOperation('/crm/editpatner', {});
    expect(missing.kind).toBe('unknown_action');
    if (missing.kind === 'unknown_action') expect(missing.message).toContain('action "create"');
  });

  it('quotes a hostile action short and printable, and never serializes a nested one', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const nested = resolveOperation('/crm/editpatner', { action: deep });
    expect(nested.kind === 'unknown_action' && nested.message).toBe(
      'Unknown action an array on /crm/editpatner; allowed actions: create, edit, delete',
    );
    const long = resolveOperation('/crm/editpatner', { action: `\u0000${'x'.repeat(100_000)}` });
    expect(long.kind === 'unknown_action' && long.message).toMatch(/^Unknown action "\\u0000x{63}…" on \/crm\/editpatner/);
  });

  it('answers unknown paths as unknown', () => {
    expect(opName('/crm/nothing', {})).toBe('unknown_path');
    expect(opName('/', {})).toBe('unknown_path');
  });

  it('picks product operations as the spec discriminates them', () => {
    expect(opName('/inventory/editproduct/', { name: 'x' })).toBe('catalog.product.create');
    expect(opName('/inventory/editproduct/', { product_id: 1 })).toBe('catalog.product.edit');
    expect(opName('/inventory/editproduct/', { product_id: 1, delete: true })).toBe('catalog.product.delete');
    expect(opName('/inventory/editproduct/', { action: 'create_variant' })).toBe('catalog.variant.create');
  });

  it('accepts domain-wide operations on every path of their domain only', () => {
    expect(opName('/inventory/getproducts', { action: 'stock_adjustment' })).toBe('catalog.stock.adjust');
    expect(opName('/sales/orderdetail', { action: 'convert_to_invoice' })).toBe('sales.quotation.convert');
    expect(opName('/invoicing/getinvoice', { pause_recurring: true })).toBe('invoicing.recurring.pause');
    expect(opName('/crm/partners', { action: 'stock_adjustment' })).toBe('partners.partner.list');
  });

  it('refuses two operation flags at once', () => {
    expect(opName('/invoicing/invoice/new', { validate_invoice: true, cancel_invoice: true })).toBe('unknown_action');
  });

  it('gives every operation a unique name and every routed one a path of its domain', () => {
    const names = operations.map((o) => o.name);
    expect(new Set(names).size).toBe(names.length);
    expect(knownPaths()).toEqual(
      expect.arrayContaining(['/crm/editpatner', '/inventory/getproducts', '/sales/addline', '/invoicing/listinvoices']),
    );
  });

  it('costs each operation a whole number of reads: a read 1, a write 2, a report or a render 10, stated in OpenAPI', () => {
    const costs = Object.fromEntries(operations.map((op) => [op.name, operationCost(op)]));
    for (const op of operations) expect([op.name, Number.isInteger(costs[op.name]) && costs[op.name]! >= 1]).toEqual([op.name, true]);
    expect(costs).toMatchObject({
      'partners.partner.list': READ_COST,
      'partners.partner.create': WRITE_COST,
      'invoicing.report.run': HEAVY_COST,
      'invoicing.invoice.render': HEAVY_COST,
      'sales.quotation.render': HEAVY_COST,
    });
    const doc = buildOpenApi() as { components: { schemas: Record<string, { 'x-cost'?: number }> } };
    expect(doc.components.schemas['invoicing.report.run.request']?.['x-cost']).toBe(HEAVY_COST);
    expect(doc.components.schemas['partners.partner.list.request']?.['x-cost']).toBe(READ_COST);
  });

  it('waits longer only where the work queues by nature: an e-invoice import on the rules, a render on the PDF threads', () => {
    const waits = Object.fromEntries(operations.map((op) => [op.name, rpcTimeoutOf(op, 5000)]));
    expect(Object.fromEntries(Object.entries(waits).filter(([, ms]) => ms !== 5000))).toEqual({
      'invoicing.inbound.import': 60_000,
      'invoicing.invoice.render': RENDER_TIMEOUT_MS,
      'sales.quotation.render': RENDER_TIMEOUT_MS,
    });
    // A deployment that waits longer for everything waits that for a render too.
    expect(rpcTimeoutOf(operationsByName.get('invoicing.invoice.render')!, 60_000)).toBe(60_000);
  });

  it('documents every known path in the OpenAPI document', () => {
    const doc = buildOpenApi() as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths).sort()).toEqual(knownPaths().sort());
  });
});

describe('request and reply schemas', () => {
  it('never share a schema object, so the request limits of parseWith apply to every request', () => {
    const replies = new Set(operations.map((op) => op.reply));
    expect(operations.filter((op) => replies.has(op.request)).map((op) => op.name)).toEqual([]);
  });
});

describe('picking the operation of a request', () => {
  /** The rules as first written, over the path's candidates in order: the pick must not change. */
  function reference(path: string, body: Record<string, unknown>): Resolution {
    const candidates = resolveCandidates(path);
    if (candidates.length === 0) return { kind: 'unknown_path' };
    const actions = candidates.flatMap((op) => ('action' in op.select ? [op.select.action] : []));
    const action = body['action'];
    if (action !== undefined && actions.length > 0) {
      const match = candidates.find((op) => 'action' in op.select && op.select.action === action);
      if (match) return { kind: 'operation', operation: match };
      return { kind: 'unknown_action', allowed: actions, message: expect.stringContaining('Unknown action') as unknown as string };
    }
    const flagged = candidates.filter((op) => 'flag' in op.select && body[op.select.flag] === true);
    if (flagged.length > 1) {
      const flags = flagged.map((op) => describeSelector(op.select)).join(', ');
      return { kind: 'unknown_action', allowed: actions, message: `Only one operation flag may be set at a time; got ${flags}` };
    }
    if (flagged[0]) return { kind: 'operation', operation: flagged[0] };
    const present = candidates.find(
      (op) => 'present' in op.select && body[op.select.present] !== undefined && body[op.select.present] !== null,
    );
    if (present) return { kind: 'operation', operation: present };
    const fallback = candidates.find((op) => 'default' in op.select);
    if (fallback) return { kind: 'operation', operation: fallback };
    return { kind: 'unknown_action', allowed: actions, message: expect.stringContaining('needs one of') as unknown as string };
  }

  it('is the same as the rules as first written, on every path and selector combination', () => {
    let checked = 0;
    for (const path of [...knownPaths(), '/nowhere']) {
      const candidates = resolveCandidates(path);
      const fields = new Set<string>();
      const actions: unknown[] = [undefined, 'no-such-action', 3, null];
      for (const op of candidates) {
        if ('action' in op.select) actions.push(op.select.action);
        if ('flag' in op.select) fields.add(op.select.flag);
        if ('present' in op.select) fields.add(op.select.present);
      }
      const names = [...fields];
      const values: unknown[] = [true, 1, null, 'x'];
      const bodies: Array<Record<string, unknown>> = [{}];
      for (const a of names) for (const v of values) bodies.push({ [a]: v });
      for (const a of names) for (const b of names) if (a < b) bodies.push({ [a]: true, [b]: true }, { [a]: true, [b]: 'x' });
      for (const action of actions) {
        for (const body of bodies) {
          const withAction = action === undefined ? body : { ...body, action };
          for (const p of [path, `${path}/`, `${path}//`]) {
            expect(resolveOperation(p, withAction)).toEqual(reference(p, withAction));
            checked++;
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(1000);
  });
});
