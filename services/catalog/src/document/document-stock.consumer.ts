import { catalog, consumer, type EventOf, type invoicing } from '@bo/contracts';
import { dec, toNumber } from '@bo/kernel';
import { bindConsumer, recordEvent, type Knex, type Logger, type SqlStatement } from '@bo/runtime';
import { parseStringId } from '../ids';
import { ensureDefaultLocation, locationsQuery, type LocationJoinRow } from '../location/location.repository';
import { carriesStock } from '../product/product-rules';
import type { ProductRow } from '../product/product.record';
import { recordStockAdjusted, recordStockMove, type StockDocument } from '../stock/stock.ledger';
import { decideDocumentStock, type DocumentStockState, type DocumentToMove, type Unmoved } from './decide-document-stock';
import { documentMoves, type ProductMove } from './document-moves';

/**
 * Stock follows validated invoices (docs/design.md): each `invoicing.invoice.validated` becomes one
 * ordinary ledger move per inventory product it names, referencing the document. A move is made once
 * per (organization, document, product), the ledger's natural key (catalog migration 004): a
 * document whose move of a product exists moves it no more, so an event delivered again after the
 * inbox forgot its id moves nothing twice. Documents may take a location below zero (the goods left
 * whatever the ledger held): the move is recorded and `catalog.stock.negative` says so.
 *
 * A batch is first loaded and decided (decide-document-stock.ts): one read of the products its
 * documents name and of their moves made already. A batch that moves no stock, the common case
 * (services, products moved already, unknown ones), is then stored as its inbox rows alone: two
 * statements, no transaction. A batch with inventory products to move is applied in the inbox
 * transaction (`batch`): it locks every product it names in one statement, in id order (the order
 * every stock change takes its locks in), before any move; a product row is never changed by a move,
 * so the rows read there stay true for every document of the batch.
 */
export const documentStockConsumer = bindConsumer(consumer.catalogDocuments).to({
  plan: {
    load: (events) => loadDocumentStock(toMove(events)),
    store(events, loaded, log) {
      const { moves, unmoved } = decideDocumentStock(toMove(events), loaded as unknown as DocumentStockState);
      if (moves) return 'in transaction';
      for (const u of unmoved) reportUnmoved(log, u);
      return { writes: [] };
    },
  },
  async batch(trx, events, log) {
    const documents = toMove(events);
    const products = await lockProducts(
      trx,
      documents.flatMap(({ orgId, moves }) => moves.map((m) => [orgId, m.productId] as const)),
    );
    // Only documents that would move stock are looked up, so service products still cost one statement.
    const stocked = (orgId: number, productId: number) => {
      const product = products.get(`${orgId}:${productId}`);
      return product !== undefined && carriesStock(product.type);
    };
    const moved = await movedAlready(
      trx,
      documents.filter(({ orgId, moves }) => moves.some((m) => stocked(orgId, m.productId))),
    );
    for (const { eventId, orgId, document, moves } of documents) {
      for (const move of moves) {
        const product = products.get(`${orgId}:${move.productId}`);
        if (moved.has(`${orgId}:${document.id}:${move.productId}`)) {
          reportUnmoved(log, { eventId, document, productId: move.productId, why: 'moved already' });
        } else if (!product) {
          reportUnmoved(log, { eventId, document, productId: move.productId, why: 'unknown product' });
        } else if (carriesStock(product.type)) {
          await applyMove(trx, orgId, document, product, move, log);
          moved.add(`${orgId}:${document.id}:${move.productId}`);
        }
      }
    }
  },
});

/** Each validated document of the batch with its moves per product (document-moves.ts). */
function toMove(events: ReadonlyArray<EventOf<typeof invoicing.invoiceValidated>>): DocumentToMove[] {
  return events.map(({ id, org_id, data }) => ({
    eventId: id,
    orgId: org_id,
    document: { type: data.invoicetype, id: data.invoice_id, number: data.invoicenumber },
    moves: documentMoves(data.invoicetype, data.lines ?? [], data.restock),
  }));
}

function reportUnmoved(log: Logger, { eventId, document, productId, why }: Unmoved): void {
  if (why === 'moved already')
    log.info({ event_id: eventId, product_id: productId, document }, 'document already moved this product; nothing moved again');
  else
    log.warn(
      { event_id: eventId, product_id: productId, document },
      'validated document names a product this organization does not have; no stock moved',
    );
}

/** What a batch's documents are decided on (DocumentStockState), as one statement answering one row. */
function loadDocumentStock(documents: readonly DocumentToMove[]): SqlStatement {
  const named = documents.flatMap(({ orgId, moves }) => moves.map((m) => [orgId, m.productId] as const));
  return {
    sql: `select (select coalesce(json_agg(json_build_object('org_id', p.org_id, 'id', p.id, 'type', p.type)), '[]')
                    from products p where (p.org_id, p.id) in (select * from unnest(?::int[], ?::int[]))) as products,
                 (select coalesce(json_agg(json_build_object('org_id', m.org_id, 'document_id', m.document_id, 'product_id', m.product_id)), '[]')
                    from stock_moves m
                   where m.document_id is not null and (m.org_id, m.document_id) in (select * from unnest(?::int[], ?::int[]))) as moved`,
    bindings: [named.map(([org]) => org), named.map(([, id]) => id), documents.map((d) => d.orgId), documents.map((d) => d.document.id)],
  };
}

/** The `org:document:product` keys of the batch's documents that already have their move. */
async function movedAlready(trx: Knex.Transaction, documents: readonly DocumentToMove[]): Promise<Set<string>> {
  if (!documents.length) return new Set();
  const rows = await trx('stock_moves')
    .whereNotNull('document_id')
    .whereIn(
      ['org_id', 'document_id'],
      documents.map(({ orgId, document }) => [orgId, document.id]),
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
  orgId: number,
  document: StockDocument,
  product: ProductRow,
  move: ProductMove,
  log: Logger,
): Promise<void> {
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
