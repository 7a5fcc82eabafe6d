import fc from 'fast-check';
import { dec } from '@bo/kernel';
import type { DocumentToMove } from './decide-document-stock';
import { defaultsMissing, planDocumentMoves, type DocumentMovesState } from './plan-document-moves';

const stockLocation = { location_id: 5, location_name: 'Stock', is_default: true, warehouse_id: 2, warehouse_name: 'Main Warehouse' };
const north = { org_id: 1, location_id: 6, location_name: 'North', is_default: false, warehouse_id: 3, warehouse_name: 'North Warehouse' };
const now = new Date('2026-11-28T10:00:00Z');

const doc = (
  id: number,
  moves: Array<[productId: number, Array<[location: string | null, change: number]>]>,
  orgId = 1,
): DocumentToMove => ({
  eventId: `event-${id}`,
  orgId,
  document: { type: 'invoiceout', id, number: `INV-${id}` },
  moves: moves.map(([productId, changes]) => ({ productId, changes: new Map(changes.map(([l, c]) => [l, dec(c)])) })),
});

const given = (state: Partial<DocumentMovesState> = {}): DocumentMovesState => ({
  products: [
    { org_id: 1, id: 10, type: 'service', sku: null },
    { org_id: 1, id: 20, type: 'inventory', sku: 'BOLT' },
    { org_id: 1, id: 30, type: 'inventory', sku: 'NUT' },
  ],
  moved: [],
  locations: [north, { ...stockLocation, org_id: 1 }],
  defaults: new Map([[1, stockLocation]]),
  quantities: [
    { product_id: 20, location_id: 5, quantity: '10' },
    { product_id: 20, location_id: 6, quantity: '1' },
  ],
  moveIds: ['101', '102', '103', '104'],
  now,
  ...state,
});

describe('planning the stock moves of a batch of validated documents', () => {
  it('given two documents moving one product, when planned, then the second starts from what the first left and the quantity stored is the last', () => {
    const plan = planDocumentMoves([doc(1, [[20, [[null, -4]]]]), doc(2, [[20, [[null, -3]]]])], given());
    expect(plan.moves).toEqual([
      { id: '101', org_id: 1, product_id: 20, document: { type: 'invoiceout', id: 1, number: 'INV-1' } },
      { id: '102', org_id: 1, product_id: 20, document: { type: 'invoiceout', id: 2, number: 'INV-2' } },
    ]);
    expect(plan.lines.map((l) => [l.move_id, l.location_id, l.previous.toFixed(), l.next.toFixed(), l.change.toFixed()])).toEqual([
      ['101', 5, '10', '6', '-4'],
      ['102', 5, '6', '3', '-3'],
    ]);
    expect(plan.quantities.map((q) => [q.product_id, q.location_id, q.quantity.toFixed()])).toEqual([[20, 5, '3']]);
    // Each move's event tells the product's stock over every location after it: 6 + 1, then 3 + 1.
    expect(plan.events.map((e) => e.type === 'adjusted' && [e.data.stock_move_id, e.data.stock, e.data.created_at])).toEqual([
      ['101', 7, '2026-11-28T10:00:00'],
      ['102', 4, '2026-11-28T10:00:00'],
    ]);
  });

  it('given a named location of the organization, one it does not have and none, when planned, then unknown and none go to its default location and add up there', () => {
    const plan = planDocumentMoves(
      [
        doc(1, [
          [
            30,
            [
              ['6', 2],
              ['999', 1],
              [null, 4],
            ],
          ],
        ]),
      ],
      given(),
    );
    expect(plan.lines.map((l) => [l.location_id, l.next.toFixed()])).toEqual([
      [6, '2'],
      [5, '5'],
    ]);
    expect(plan.unknownLocations).toEqual([{ eventId: 'event-1', locationId: '999' }]);
    const adjusted = plan.events[0];
    expect(adjusted?.type === 'adjusted' && adjusted.data.lines.map((l) => l.warehouse_id)).toEqual(['3', '2']);
  });

  it('given a location of another organization, when named, then it is unknown to this one', () => {
    const plan = planDocumentMoves(
      [doc(1, [[30, [['6', 2]]]], 2)],
      given({ products: [{ org_id: 2, id: 30, type: 'inventory', sku: null }], defaults: new Map([[2, stockLocation]]) }),
    );
    expect(plan.unknownLocations).toEqual([{ eventId: 'event-1', locationId: '6' }]);
    expect(plan.lines.map((l) => l.location_id)).toEqual([5]);
  });

  it('given a move below zero, when planned, then the move is made and a negative event follows its adjusted event', () => {
    const plan = planDocumentMoves([doc(1, [[20, [['6', -3]]]])], given());
    expect(plan.events.map((e) => e.type)).toEqual(['adjusted', 'negative']);
    expect(plan.events[1]).toMatchObject({
      data: { product_id: 20, sku: 'BOLT', location_id: '6', warehouse_id: '3', quantity: -2, stock_move_id: '101' },
    });
  });

  it('given a service, an unknown product and a product its document moved already, when planned, then none moves and the last two are reported', () => {
    const plan = planDocumentMoves(
      [
        doc(1, [
          [10, [[null, -1]]],
          [20, [[null, -1]]],
          [99, [[null, -1]]],
        ]),
      ],
      given({ moved: [{ org_id: 1, document_id: 1, product_id: 20 }] }),
    );
    expect(plan.moves).toEqual([]);
    expect(plan.events).toEqual([]);
    expect(plan.unmoved.map((u) => [u.productId, u.why])).toEqual([
      [20, 'moved already'],
      [99, 'unknown product'],
    ]);
  });

  it('given a document named twice in one batch, when planned, then it moves once', () => {
    const plan = planDocumentMoves([doc(1, [[20, [[null, -1]]]]), doc(1, [[20, [[null, -1]]]])], given());
    expect(plan.moves).toHaveLength(1);
    expect(plan.unmoved).toEqual([
      { eventId: 'event-1', document: { type: 'invoiceout', id: 1, number: 'INV-1' }, productId: 20, why: 'moved already' },
    ]);
  });

  it('given an organization with no default location, then defaultsMissing names it when a stocked move needs one, and planning without it throws', () => {
    const state = given({ defaults: new Map() });
    expect(defaultsMissing([doc(1, [[20, [['6', 1]]]])], state)).toEqual([]);
    expect(defaultsMissing([doc(1, [[10, [[null, 1]]]])], state)).toEqual([]);
    expect(defaultsMissing([doc(1, [[20, [[null, 1]]]])], state)).toEqual([1]);
    expect(() => planDocumentMoves([doc(1, [[20, [[null, 1]]]])], state)).toThrow(/no default location/);
  });

  it('given more moves than ids drawn, then it throws rather than reuse one', () => {
    expect(() =>
      planDocumentMoves(
        [
          doc(1, [
            [20, [[null, 1]]],
            [30, [[null, 1]]],
          ]),
        ],
        given({ moveIds: ['101'] }),
      ),
    ).toThrow(/ids drawn/);
  });

  it('given any batch, when planned whole, then it ends where planning its documents one by one ends', () => {
    const move = fc.tuple(
      fc.constantFrom(10, 20, 30, 99),
      fc.array(fc.tuple(fc.constantFrom(null, '5', '6', '7'), fc.integer({ min: -9, max: 9 })), { minLength: 1, maxLength: 3 }),
    );
    const batch = fc.array(fc.tuple(fc.integer({ min: 1, max: 4 }), fc.array(move, { minLength: 1, maxLength: 3 })), {
      minLength: 1,
      maxLength: 6,
    });
    const seed = Number(process.env.FC_SEED ?? Date.now() % 1_000_000_000);
    console.log(`plan-document-moves property seed: ${seed}`);
    fc.assert(
      fc.property(batch, (raw) => {
        const documents = raw.map(([id, moves]) => doc(id, moves));
        const ids = Array.from({ length: 30 }, (_, i) => String(200 + i));
        const whole = planDocumentMoves(documents, given({ moveIds: ids }));

        let state = given({ moveIds: ids });
        const quantities = new Map(state.quantities.map((q) => [`${q.product_id}:${q.location_id}`, q.quantity]));
        const events: unknown[] = [];
        for (const document of documents) {
          const one = planDocumentMoves([document], state);
          events.push(...one.events);
          for (const q of one.quantities) quantities.set(`${q.product_id}:${q.location_id}`, q.quantity.toFixed());
          state = {
            ...state,
            moved: [...state.moved, ...one.moves.map((m) => ({ org_id: m.org_id, document_id: m.document.id, product_id: m.product_id }))],
            quantities: [...quantities].map(([k, quantity]) => {
              const [product_id, location_id] = k.split(':').map(Number) as [number, number];
              return { product_id, location_id, quantity };
            }),
            moveIds: state.moveIds.slice(one.moves.length),
          };
        }
        expect(whole.events).toEqual(events);
        for (const q of whole.quantities)
          expect(q.quantity.toFixed()).toBe(dec(quantities.get(`${q.product_id}:${q.location_id}`) ?? 'x').toFixed());
      }),
      { seed, numRuns: 200 },
    );
  });
});
