import { dec } from '@bo/kernel';
import { decideDocumentStock, type DocumentStockState, type DocumentToMove } from './decide-document-stock';

const doc = (id: number, productIds: number[], orgId = 1): DocumentToMove => ({
  eventId: `event-${id}`,
  orgId,
  document: { type: 'invoiceout', id, number: `INV-${id}` },
  moves: productIds.map((productId) => ({ productId, changes: new Map([[null, dec(-1)]]) })),
});
const given = (state: Partial<DocumentStockState> = {}): DocumentStockState => ({
  products: [
    { org_id: 1, id: 10, type: 'service' },
    { org_id: 1, id: 20, type: 'inventory' },
  ],
  moved: [],
  ...state,
});

describe('which documents of a batch move stock', () => {
  it('moves nothing for service products: the batch is its inbox rows alone', () => {
    expect(decideDocumentStock([doc(1, [10]), doc(2, [10])], given())).toEqual({ moves: false, unmoved: [] });
  });

  it('moves an inventory product a document has not moved yet', () => {
    expect(decideDocumentStock([doc(1, [10, 20])], given()).moves).toBe(true);
  });

  it('moves a product no more once its document moved it, and nothing of a product the organization does not have', () => {
    const decided = decideDocumentStock(
      [doc(1, [20]), doc(2, [99]), doc(3, [20], 2)],
      given({ moved: [{ org_id: 1, document_id: 1, product_id: 20 }] }),
    );
    expect(decided).toEqual({
      moves: false,
      unmoved: [
        { eventId: 'event-1', document: { type: 'invoiceout', id: 1, number: 'INV-1' }, productId: 20, why: 'moved already' },
        { eventId: 'event-2', document: { type: 'invoiceout', id: 2, number: 'INV-2' }, productId: 99, why: 'unknown product' },
        // Product 20 is organization 1's: organization 2 has none of that id.
        { eventId: 'event-3', document: { type: 'invoiceout', id: 3, number: 'INV-3' }, productId: 20, why: 'unknown product' },
      ],
    });
  });
});
