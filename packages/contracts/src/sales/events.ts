import { z } from 'zod';
import { defineEvent } from '../events';
import { invoiceTypes } from '../invoicing';
import { quotationTypes } from './schemas';

// `sales.quotation.converted` is consumed by the partners service (committed amount): fields may be
// added, never removed or renamed.
export const quotationConverted = defineEvent({
  type: 'sales.quotation.converted',
  summary: "A quotation became a draft invoice; raises the partner's committed amount",
  data: z.object({
    quotation_id: z.number().int(),
    quotation_number: z.string(),
    invoice_id: z.number().int(),
    invoicenumber: z.string(),
    invoicetype: z.enum(invoiceTypes),
    partner_id: z.number().int(),
    subtotal: z.number(),
    tax_amount: z.number(),
    quotation_total: z.number(),
    converted_at: z.string(),
    quotation_type: z.enum(quotationTypes).optional(),
    /** The quotation's currency (ISO 4217; null: it has none). Added field: absent on events recorded before. */
    currency: z.string().nullable().optional(),
  }),
});

export const salesEvents = [quotationConverted];

export type QuotationConvertedData = z.infer<typeof quotationConverted.data>;
