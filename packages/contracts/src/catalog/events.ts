import { z } from 'zod';
import { defineEvent } from '../events';
import { productRecord, stockMoveDocument, stockMoveSources } from './schemas';

/** The product record; events recorded before products kept versions have none. */
const productEventData = productRecord.extend({ version: productRecord.shape.version.optional() });

export const productCreated = defineEvent({
  type: 'catalog.product.created',
  summary: 'A product was created; data is the product record (stock included)',
  data: productEventData,
});
export const productUpdated = defineEvent({
  type: 'catalog.product.updated',
  summary: 'A product was edited; data is the product record after the edit',
  data: productEventData,
});
export const productDeleted = defineEvent({
  type: 'catalog.product.deleted',
  summary: 'A product was soft-deleted; data is the product record as it was',
  data: productEventData,
});

export const stockAdjustedData = z.object({
  stock_move_id: z.string(),
  product_id: z.number().int(),
  sku: z.string().nullable(),
  source: z.enum(stockMoveSources),
  adjustment_type: z.string(),
  reference: z.string().nullable(),
  notes: z.string().nullable(),
  /** The validated document a `document` move follows (added field; absent or null otherwise). */
  document: stockMoveDocument.optional(),
  lines: z.array(
    z.object({
      location_id: z.string(),
      warehouse_id: z.string(),
      previous_stock: z.number(),
      new_stock: z.number(),
      change: z.number(),
    }),
  ),
  /** The product's stock over every location after the move. */
  stock: z.number(),
  created_at: z.string(),
});
export type StockAdjustedData = z.infer<typeof stockAdjustedData>;

export const stockAdjusted = defineEvent({
  type: 'catalog.stock.adjusted',
  summary: 'Stock quantities of a product changed by one stock move',
  data: stockAdjustedData,
});

export const stockNegativeData = z.object({
  product_id: z.number().int(),
  sku: z.string().nullable(),
  location_id: z.string(),
  warehouse_id: z.string(),
  /** The location's quantity after the move, below zero. */
  quantity: z.number(),
  stock_move_id: z.string(),
  document: stockMoveDocument,
});

export type StockNegativeData = z.infer<typeof stockNegativeData>;

export const stockNegative = defineEvent({
  type: 'catalog.stock.negative',
  summary: 'A validated document took a location of a product below zero (stock sold or returned that the ledger did not hold)',
  data: stockNegativeData,
});

export const catalogEvents = [productCreated, productUpdated, productDeleted, stockAdjusted, stockNegative];
