import type { LineFigures } from '@bo/kernel';
import { z } from 'zod';
import { atMost, money, notBlank, optionalText, percentage, plainString, quantity, stringId } from './fields';

/**
 * A document line as quotations and invoices receive it (spec 2.6). Client-sent amounts are
 * accepted but the server recomputes them; `product_id` arrives as a string or an integer and must
 * name a live catalog product of the organization (a `service` product for work and fees).
 * `variant_id` (a variant of that product) and `location_id` (where stock moves when the invoice
 * is validated) are optional and checked the same way. Without `price`, `product_name` or
 * `description` the line takes the catalog's (the variant's price when it names one).
 */
export const lineItemInput = z.object({
  product_id: z.union([plainString().trim().check(notBlank(), atMost(64)), z.number().int()]).transform(String),
  variant_id: stringId.optional(),
  location_id: stringId.optional(),
  product_name: optionalText(200),
  description: optionalText(2000, 'multiline'),
  quantity: quantity({ positive: true }),
  price: quantity({ min: 0 }).optional(),
  discount: percentage().optional(),
  tax_rate: percentage(),
  tax_included: z.boolean(),
  subtotal: money().optional(),
  tax_amount: money().optional(),
  total: money().optional(),
});
export type LineItemInput = z.output<typeof lineItemInput>;

/**
 * Fields of a line as quotations and invoices answer it; each adds its id and its document's id.
 * One schema for each field of the kernel's line (LineFigures), no more and no fewer.
 */
export const lineRecordFields = {
  product_id: z.string(),
  variant_id: z.string().nullable(),
  location_id: z.string().nullable(),
  product_name: z.string().nullable(),
  /** Snapshot of the catalog product (or variant) when the line was made; later catalog edits leave it. */
  sku: z.string().nullable(),
  uom: z.string().nullable(),
  description: z.string().nullable(),
  quantity: z.number(),
  price: z.number(),
  discount: z.number(),
  tax_rate: z.number(),
  tax_included: z.boolean(),
  subtotal: z.number(),
  tax_amount: z.number(),
  total: z.number(),
} satisfies { [K in keyof LineFigures]-?: z.ZodType<LineFigures[K]> };
