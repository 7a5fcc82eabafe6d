import type { catalog } from '@bo/contracts';
import { dec, formatDateTime, toNumber, type Dec } from '@bo/kernel';
import { parseStringId } from '../ids';
import type { LocationJoinRow } from '../location/location.repository';
import { carriesStock } from '../product/product-rules';
import { computeAdjustment } from '../stock/adjustment';
import type { DocumentToMove, Unmoved } from './decide-document-stock';

/**
 * What a batch's moves are decided on, read in one statement (document-stock.consumer.ts
 * loadDocumentStock; its store then holds each product to the stock version read, or the read follows
 * the products' locks): the products, the moves their documents made already, the
 * locations the lines name, each organization's default location, every quantity of the products,
 * ids drawn for the moves, and the transaction's time (the moves' created_at).
 */
export interface DocumentMovesState {
  products: ReadonlyArray<{ org_id: number; id: number; type: string; sku: string | null }>;
  moved: ReadonlyArray<{ org_id: number; document_id: number; product_id: number }>;
  /** The named locations that exist, with the organization each is of. */
  locations: ReadonlyArray<LocationJoinRow & { org_id: number }>;
  /** Each organization's default location, by organization id; one missing has none yet. */
  defaults: ReadonlyMap<number, LocationJoinRow>;
  /** Every location's quantity of the named products. */
  quantities: ReadonlyArray<{ product_id: number; location_id: number; quantity: string }>;
  /** Ids drawn for the moves (bigint, as text), at least one per product a document of the batch names. */
  moveIds: readonly string[];
  now: Date;
}

/** The stock_moves row of a document's move of one product. */
export interface DocumentMoveRow {
  id: string;
  org_id: number;
  product_id: number;
  document: catalog.StockAdjustedData['document'] & {};
}

/** What the batch writes and announces, in the order the documents and their products came. */
export interface DocumentMovesPlan {
  moves: DocumentMoveRow[];
  lines: Array<{
    move_id: string;
    org_id: number;
    product_id: number;
    location_id: number;
    previous: Dec;
    next: Dec;
    change: Dec;
  }>;
  /** Each (product, location) the batch moved, at the quantity its last move left. */
  quantities: Array<{ org_id: number; product_id: number; location_id: number; quantity: Dec }>;
  /** `catalog.stock.adjusted` for each move, each followed by a `catalog.stock.negative` per location it took below zero. */
  events: Array<
    | { type: 'adjusted'; orgId: number; data: catalog.StockAdjustedData }
    | { type: 'negative'; orgId: number; data: catalog.StockNegativeData }
  >;
  unmoved: Unmoved[];
  /** Named locations the organization does not have: their changes went to its default location. */
  unknownLocations: Array<{ eventId: string; locationId: string }>;
}

const key = (...parts: ReadonlyArray<number | string>) => parts.join(':');

/** The organizations whose documents move stock to their default location and have none yet: made before the plan (ensureDefaultLocation). */
export function defaultsMissing(
  documents: readonly DocumentToMove[],
  state: Omit<DocumentMovesState, 'defaults'> & { defaults: ReadonlyMap<number, unknown> },
): number[] {
  const named = new Set(state.locations.map((l) => key(l.org_id, l.location_id)));
  const stocked = new Set(state.products.filter((p) => carriesStock(p.type)).map((p) => key(p.org_id, p.id)));
  const missing = new Set<number>();
  for (const { orgId, moves } of documents) {
    if (state.defaults.has(orgId)) continue;
    for (const move of moves) {
      if (!stocked.has(key(orgId, move.productId))) continue;
      for (const locationId of move.changes.keys()) {
        const id = locationId === null ? null : parseStringId(locationId);
        if (id === null || !named.has(key(orgId, id))) missing.add(orgId);
      }
    }
  }
  return [...missing];
}

/**
 * Plans a batch's stock moves (docs/design.md "stock follows documents"): for each document in
 * order, one move per inventory product it names and has not moved yet (the ledger's natural key),
 * changing each named location (one the organization does not have, or none, is its default
 * location; changes to one location add up) from the quantity the batch's earlier moves left, as
 * recordStockMove would have one by one. A location taken below zero is announced. Throws when a
 * default location it needs is missing (defaultsMissing names those) or the ids drawn run out.
 */
export function planDocumentMoves(documents: readonly DocumentToMove[], state: DocumentMovesState): DocumentMovesPlan {
  const products = new Map(state.products.map((p) => [key(p.org_id, p.id), p]));
  const moved = new Set(state.moved.map((m) => key(m.org_id, m.document_id, m.product_id)));
  const locations = new Map(state.locations.map((l) => [key(l.org_id, l.location_id), l]));
  const held = new Map(state.quantities.map((q) => [key(q.product_id, q.location_id), dec(q.quantity)]));
  const ids = [...state.moveIds];
  const createdAt = formatDateTime(state.now) as string;
  const plan: DocumentMovesPlan = { moves: [], lines: [], quantities: [], events: [], unmoved: [], unknownLocations: [] };
  const final = new Map<string, DocumentMovesPlan['quantities'][number]>();

  for (const { eventId, orgId, document, moves } of documents) {
    for (const move of moves) {
      const product = products.get(key(orgId, move.productId));
      if (moved.has(key(orgId, document.id, move.productId))) {
        plan.unmoved.push({ eventId, document, productId: move.productId, why: 'moved already' });
        continue;
      }
      if (!product) {
        plan.unmoved.push({ eventId, document, productId: move.productId, why: 'unknown product' });
        continue;
      }
      if (!carriesStock(product.type)) continue;

      const changes = new Map<number, { location: LocationJoinRow; change: Dec }>();
      for (const [locationId, change] of move.changes) {
        const id = locationId === null ? null : parseStringId(locationId);
        let location: LocationJoinRow | undefined = id === null ? undefined : locations.get(key(orgId, id));
        if (!location) {
          if (locationId !== null) plan.unknownLocations.push({ eventId, locationId });
          location = state.defaults.get(orgId);
          if (!location) throw new Error(`organization ${orgId} has no default location to move product ${product.id} to`);
        }
        const prior = changes.get(location.location_id);
        changes.set(location.location_id, { location, change: prior ? prior.change.plus(change) : change });
      }
      const current = new Map([...changes.keys()].map((l) => [l, (held.get(key(product.id, l)) ?? dec(0)).toFixed()]));
      const lines = computeAdjustment(
        current,
        [...changes.values()].map(({ location, change }) => [
          location.location_id,
          dec(current.get(location.location_id) ?? '0')
            .plus(change)
            .toFixed(),
        ]),
      );

      const moveId = ids.shift();
      if (moveId === undefined) throw new Error('the moves of a batch outnumber the ids drawn for them');
      plan.moves.push({ id: moveId, org_id: orgId, product_id: product.id, document });
      for (const l of lines) {
        plan.lines.push({
          move_id: moveId,
          org_id: orgId,
          product_id: product.id,
          location_id: l.locationId,
          previous: l.previous,
          next: l.next,
          change: l.change,
        });
        held.set(key(product.id, l.locationId), l.next);
        final.set(key(product.id, l.locationId), { org_id: orgId, product_id: product.id, location_id: l.locationId, quantity: l.next });
      }
      let stock = dec(0);
      for (const [k, quantity] of held) if (k.startsWith(`${product.id}:`)) stock = stock.plus(quantity);
      const warehouseOf = (locationId: number) => String(changes.get(locationId)?.location.warehouse_id);
      plan.events.push({
        type: 'adjusted',
        orgId,
        data: {
          stock_move_id: moveId,
          product_id: product.id,
          sku: product.sku,
          source: 'document',
          adjustment_type: document.type,
          reference: document.number,
          notes: null,
          document,
          lines: lines.map((l) => ({
            location_id: String(l.locationId),
            warehouse_id: warehouseOf(l.locationId),
            previous_stock: toNumber(l.previous),
            new_stock: toNumber(l.next),
            change: toNumber(l.change),
          })),
          stock: toNumber(stock),
          created_at: createdAt,
        },
      });
      for (const l of lines.filter((line) => line.next.isNegative())) {
        plan.events.push({
          type: 'negative',
          orgId,
          data: {
            product_id: product.id,
            sku: product.sku,
            location_id: String(l.locationId),
            warehouse_id: warehouseOf(l.locationId),
            quantity: toNumber(l.next),
            stock_move_id: moveId,
            document,
          },
        });
      }
      moved.add(key(orgId, document.id, product.id));
    }
  }
  plan.quantities = [...final.values()];
  return plan;
}
