import { z } from 'zod';
import { money, optionalText, percentage, plainString, quantity } from './fields';

/**
 * A document line as quotations and invoices receive it (spec 2.6). Client-sent amounts are
 * accepted but the server recomputes them; `product_id` arrives as a string or an integer.
 */
export const lineItemInput = z.object({
  product_id: z.union([plainString().trim().min(1).max(64), z.number().int()]).transform(String),
  product_name: optionalText(200),
  description: optionalText(2000, 'multiline'),
  quantity: quantity({ positive: true }),
  price: quantity({ min: 0 }),
  discount: percentage().optional(),
  tax_rate: percentage(),
  tax_included: z.boolean(),
  subtotal: money().optional(),
  tax_amount: money().optional(),
  total: money().optional(),
});
export type LineItemInput = z.output<typeof lineItemInput>;

/** Fields of a line as quotations and invoices answer it; each adds its id and its document's id. */
export const lineRecordFields = {
  product_id: z.string(),
  product_name: z.string().nullable(),
  description: z.string().nullable(),
  quantity: z.number(),
  price: z.number(),
  discount: z.number(),
  tax_rate: z.number(),
  tax_included: z.boolean(),
  subtotal: z.number(),
  tax_amount: z.number(),
  total: z.number(),
};
