import type { catalog } from '@bo/contracts';
import { dec, formatDateTime, toNumber } from '@bo/kernel';
import { parseStringId } from '../ids';
import { carriesStock } from '../product/product-rules';
import { computeAdjustment, type AdjustmentLine } from './adjustment';
import { stockRefusals } from './stock-refusals';

/** What a stock adjustment decides on, read under the product's lock (lockAndLoadAdjustment). */
export interface AdjustmentState {
  /** The live product, null when the organization has none of that id. */
  product: { id: number; type: string; sku: string | null } | null;
  /** The product's stock over all locations. */
  total: string;
  /** The organization's locations the request names that exist, with the product's quantity at each. */
  locations: ReadonlyArray<{ locationId: number; warehouseId: number; quantity: string }>;
  /** The id the move will have, drawn with the load, and the transaction's time it is made at. */
  moveId: number;
  now: Date;
  /** The product's record and stock versions as read (null with no product): an optimistic store checks them. */
  versions: { record: number; stock: string } | null;
}

/** The request's fields a decision reads. */
export interface AdjustmentRequest {
  qty_locations: Readonly<Record<string, string>>;
  adjustment_type?: string | null;
  reference?: string | null;
  notes?: string | null;
  userid?: string | null;
}

/** What an adjustment writes (storeAdjustment), and what its event and reply say once written. */
export interface StockAdjustmentPlan {
  move: {
    id: number;
    createdAt: Date;
    orgId: number;
    productId: number;
    adjustmentType: string;
    reference: string | null;
    notes: string | null;
    userId: string | null;
  };
  lines: AdjustmentLine[];
  /** The product's stock over all locations once the move is written. */
  stock: string;
  warehouseOf: ReadonlyMap<number, number>;
  sku: string | null;
}

/** The locations the request names, as ids; one that is no id can name no location. */
export function requestedLocationIds(req: Pick<AdjustmentRequest, 'qty_locations'>): number[] {
  return Object.keys(req.qty_locations).flatMap((key) => {
    const id = parseStringId(key);
    return id === null ? [] : [id];
  });
}

/**
 * Decides a stock adjustment: the product must exist and carry stock, every location named must be
 * the organization's; each named location is set to its target (a line per location, in the order
 * given, unchanged ones too: a count that found nothing to correct is still a stock check).
 */
export function decideAdjustment(
  state: AdjustmentState,
  req: AdjustmentRequest,
  ctx: { orgId: number; productId: number; userId?: string | null },
): StockAdjustmentPlan {
  const product = state.product;
  if (!product) throw stockRefusals.productNotFound(ctx.productId);
  if (!carriesStock(product.type)) throw stockRefusals.productCarriesNoStock(product.id, product.type);
  const known = new Map(state.locations.map((l) => [l.locationId, l]));
  const targets: Array<[number, string]> = [];
  for (const [key, quantity] of Object.entries(req.qty_locations)) {
    const id = parseStringId(key);
    if (id === null || !known.has(id)) throw stockRefusals.locationNotFound(key);
    targets.push([id, quantity]);
  }
  const current = new Map(state.locations.map((l) => [l.locationId, l.quantity]));
  const lines = computeAdjustment(current, targets);
  const stock = lines.reduce((total, l) => total.plus(l.change), dec(state.total));
  return {
    move: {
      id: state.moveId,
      createdAt: state.now,
      orgId: ctx.orgId,
      productId: product.id,
      adjustmentType: req.adjustment_type?.trim() || 'adjustment',
      reference: req.reference || null,
      notes: req.notes || null,
      userId: ctx.userId ?? req.userid ?? null,
    },
    lines,
    stock: stock.toFixed(),
    warehouseOf: new Map(state.locations.map((l) => [l.locationId, l.warehouseId])),
    sku: product.sku,
  };
}

/** The `catalog.stock.adjusted` event of the move. */
export function adjustedEvent(plan: StockAdjustmentPlan): catalog.StockAdjustedData {
  return {
    stock_move_id: String(plan.move.id),
    product_id: plan.move.productId,
    sku: plan.sku,
    source: 'adjustment',
    adjustment_type: plan.move.adjustmentType,
    reference: plan.move.reference,
    notes: plan.move.notes,
    document: null,
    lines: plan.lines.map((l) => ({
      location_id: String(l.locationId),
      warehouse_id: String(plan.warehouseOf.get(l.locationId)),
      previous_stock: toNumber(l.previous),
      new_stock: toNumber(l.next),
      change: toNumber(l.change),
    })),
    stock: toNumber(dec(plan.stock)),
    created_at: formatDateTime(plan.move.createdAt) as string,
  };
}

/** The reply to the adjustment. */
export function adjustmentReply(plan: StockAdjustmentPlan) {
  return {
    message: 'Stock adjusted successfully',
    stock_move_id: String(plan.move.id),
    details: plan.lines.map((l) => ({
      location_id: String(l.locationId),
      previous_stock: toNumber(l.previous),
      new_stock: toNumber(l.next),
      change: toNumber(l.change),
    })),
  };
}
