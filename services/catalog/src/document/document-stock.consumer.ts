import { catalog, consumer, type EventEnvelope } from '@bo/contracts';
import { dec, toNumber } from '@bo/kernel';
import { bindConsumer, recordEvent, type Knex, type Logger } from '@bo/runtime';
import { parseStringId } from '../ids';
import { ensureDefaultLocation, locationsQuery, type LocationJoinRow } from '../location/location.repository';
import { carriesStock } from '../product/product-rules';
import type { ProductRow } from '../product/product.record';
import { recordStockAdjusted, recordStockMove, type StockDocument } from '../stock/stock.ledger';
import { documentMoves, type ProductMove } from './document-moves';

/**
 * Stock follows validated invoices (docs/design.md): each `invoicing.invoice.validated` becomes one
 * ordinary ledger move per inventory product it names, referencing the document, in the inbox
 * transaction. A move is made once per (organization, document, product), the ledger's natural key
 * (catalog migration 004): a document whose move of a product exists moves it no more, so an event
 * delivered again after the inbox forgot its id moves nothing twice. Documents may take a location below
 * zero (the goods left whatever the ledger held): the move is recorded and `catalog.stock.negative`
 * says so.
 *
 * A batch of documents locks every product it names in one statement, in id order (the order every
 * stock change takes its locks in), before any move: documents of service products, the common case,
 * cost that one statement per batch; a product row is never changed by a move, so the rows read
 * there stay true for every document of the batch.
 */
export const documentStockConsumer = bindConsumer(consumer.catalogDocuments).to({
  async batch(trx, events, log) {
    const documents = events.map((event) => {
      const data = event.data;
      const document: StockDocument = { type: data.invoicetype, id: data.invoice_id, number: data.invoicenumber };
      return { event, document, moves: documentMoves(data.invoicetype, data.lines ?? [], data.restock) };
    });
    const products = await lockProducts(
      trx,
      documents.flatMap(({ event, moves }) => moves.map((m) => [event.org_id, m.productId] as const)),
    );
    // Only documents that would move stock are looked up, so service products still cost one statement.
    const stocked = (orgId: number, productId: number) => {
      const product = products.get(`${orgId}:${productId}`);
      return product !== undefined && carriesStock(product.type);
    };
    const moved = await movedAlready(
      trx,
      documents.filter(({ event, moves }) => moves.some((m) => stocked(event.org_id, m.productId))),
    );
    for (const { event, document, moves } of documents) {
      for (const move of moves) {
        const product = products.get(`${event.org_id}:${move.productId}`);
        if (moved.has(`${event.org_id}:${document.id}:${move.productId}`)) {
          log.info(
            { event_id: event.id, product_id: move.productId, document },
            'document already moved this product; nothing moved again',
          );
        } else if (!product) {
          log.warn(
            { event_id: event.id, product_id: move.productId, document },
            'validated document names a product this organization does not have; no stock moved',
          );
        } else if (carriesStock(product.type)) {
          await applyMove(trx, event, document, product, move, log);
          moved.add(`${event.org_id}:${document.id}:${move.productId}`);
        }
      }
    }
  },
});

/** The `org:document:product` keys of the batch's documents that already have their move. */
async function movedAlready(
  trx: Knex.Transaction,
  documents: ReadonlyArray<{ event: EventEnvelope; document: StockDocument }>,
): Promise<Set<string>> {
  if (!documents.length) return new Set();
  const rows = await trx('stock_moves')
    .whereNotNull('document_id')
    .whereIn(
      ['org_id', 'document_id'],
      documents.map(({ event, document }) => [event.org_id, document.id]),
    )
    .select<Array<{ org_id: number; document_id: number; product_id: number }>>('org_id', 'document_id', 'product_id');
  return new Set(rows.map((r) => `${r.org_id}:${r.document_id}:${r.product_id}`));
}

/** The named products (a deleted one still had its goods moved), locked in id order, by `org:id`. */
async function lockProducts(trx: Knex.Transaction, named: ReadonlyArray<readonly [number, number]>): Promise<Map<string, ProductRow>> {
  if (!named.length) return new Map();
  const rows = await trx<ProductRow>('products')
    .whereIn(
      ['org_id', 'id'],
      named.map(([org, id]) => [org, id]),
    )
    .orderBy('id')
    .forUpdate();
  return new Map(rows.map((p) => [`${p.org_id}:${p.id}`, p]));
}

async function applyMove(
  trx: Knex.Transaction,
  event: EventEnvelope,
  document: StockDocument,
  product: ProductRow,
  move: ProductMove,
  log: Logger,
): Promise<void> {
  const orgId = event.org_id;
  const changes = new Map<number, { location: LocationJoinRow; change: ReturnType<typeof dec> }>();
  for (const [locationId, change] of move.changes) {
    const location = await locationFor(trx, orgId, locationId, log);
    const prior = changes.get(location.location_id);
    changes.set(location.location_id, { location, change: prior ? prior.change.plus(change) : change });
  }
  const current: Array<{ location_id: number; quantity: string }> = await trx('stock_quantities')
    .where({ product_id: product.id })
    .whereIn('location_id', [...changes.keys()])
    .select('location_id', 'quantity');
  const held = new Map(current.map((r) => [Number(r.location_id), r.quantity]));
  const recorded = await recordStockMove(trx, {
    orgId,
    product,
    source: 'document',
    adjustmentType: document.type,
    reference: document.number,
    document,
    targets: [...changes.values()].map(({ location, change }) => ({
      location,
      quantity: dec(held.get(location.location_id) ?? '0')
        .plus(change)
        .toFixed(),
    })),
  });
  await recordStockAdjusted(trx, orgId, recorded);
  for (const line of recorded.lines.filter((l) => l.next.isNegative())) {
    await recordEvent(trx, catalog.stockNegative, orgId, {
      product_id: product.id,
      sku: product.sku,
      location_id: String(line.locationId),
      warehouse_id: String(changes.get(line.locationId)?.location.warehouse_id),
      quantity: toNumber(line.next),
      stock_move_id: recorded.moveId,
      document,
    } satisfies catalog.StockNegativeData);
  }
}

/** The line's location, or the organization's default one when it names none (or one gone since). */
async function locationFor(trx: Knex.Transaction, orgId: number, locationId: string | null, log: Logger): Promise<LocationJoinRow> {
  const id = locationId === null ? null : parseStringId(locationId);
  if (id !== null) {
    const row = (await locationsQuery(trx, orgId).where('l.id', id).first()) as LocationJoinRow | undefined;
    if (row) return row;
    log.warn(
      { location_id: locationId },
      'validated document names a location this organization does not have; the default location is used',
    );
  }
  return ensureDefaultLocation(trx, orgId);
}
