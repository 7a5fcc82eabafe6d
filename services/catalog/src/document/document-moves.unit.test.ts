import { documentMoves } from './document-moves';

const line = (product_id: string, quantity: number, location_id: string | null = null, line_id = 1) => ({
  line_id,
  product_id,
  variant_id: null,
  location_id,
  quantity,
});
const plain = (moves: ReturnType<typeof documentMoves>) =>
  moves.map((m) => [m.productId, [...m.changes.entries()].map(([loc, c]) => [loc, c.toFixed()])]);

describe('stock moves of a validated document', () => {
  it('takes goods out for a customer invoice and a vendor credit note', () => {
    expect(plain(documentMoves('invoiceout', [line('7', 5)]))).toEqual([[7, [[null, '-5']]]]);
    expect(plain(documentMoves('creditin', [line('7', 2.5, '4')]))).toEqual([[7, [['4', '-2.5']]]]);
  });

  it('brings goods in for a vendor bill and a customer return', () => {
    expect(plain(documentMoves('invoicein', [line('7', 20)]))).toEqual([[7, [[null, '20']]]]);
    expect(plain(documentMoves('creditout', [line('7', 1)]))).toEqual([[7, [[null, '1']]]]);
  });

  it('adds lines of one product and location, keeps locations apart, orders by product', () => {
    const moves = documentMoves('invoiceout', [line('9', 1), line('7', 2, '3'), line('7', 0.1, '3'), line('7', 0.2), line('9', 4)]);
    expect(plain(moves)).toEqual([
      [
        7,
        [
          ['3', '-2.1'],
          [null, '-0.2'],
        ],
      ],
      [9, [[null, '-5']]],
    ]);
  });

  it('moves nothing for product ids that are no catalog id', () => {
    expect(documentMoves('invoiceout', [line('abc', 1), line('0', 1)])).toEqual([]);
  });

  it('moves nothing for a credit note that returns no goods; other types and older events (no restock) move theirs', () => {
    expect(documentMoves('creditout', [line('7', 1)], false)).toEqual([]);
    expect(documentMoves('creditin', [line('7', 1)], false)).toEqual([]);
    expect(plain(documentMoves('creditout', [line('7', 1)], true))).toEqual([[7, [[null, '1']]]]);
    expect(plain(documentMoves('creditout', [line('7', 1)], undefined))).toEqual([[7, [[null, '1']]]]);
    expect(plain(documentMoves('invoiceout', [line('7', 1)], false))).toEqual([[7, [[null, '-1']]]]);
  });
});
