import { defineRefusals } from '@bo/runtime';

/**
 * Every refusal of converting a quotation to an invoice, by name (a refusal of the quotation's status
 * is the quotation module's `refusedInStatus`; one invoicing answers is relayed as invoicing gave it).
 */
export const conversionRefusals = defineRefusals('conversion', {
  /** Another request (or the recovery task) holds the conversion right now; thrown as transient. */
  heldByAnotherRequest: (quotationNumber: string) => ({
    code: 'invalid_state',
    message: `Quotation ${quotationNumber} is already being converted to an invoice by another request; a quotation converts once`,
  }),
  /** A convert asking another invoice type than the unfinished conversion it would resume; thrown as transient. */
  otherInvoiceTypeUnderWay: (quotationNumber: string, invoicetype: string) => ({
    code: 'invalid_state',
    message: `Quotation ${quotationNumber} is being converted to an invoice of type ${invoicetype}; convert it with that invoicetype to finish the conversion, which also completes by itself shortly`,
  }),
  /** A quotation without lines: it makes no invoice. */
  quotationWithoutLines: (quotationNumber: string) => ({
    code: 'invalid_state',
    message: `Quotation ${quotationNumber} has no lines; add a line before converting it`,
  }),
  /** A quotation converted already, asked by a request other than the one that started its conversion. */
  alreadyConverted: (quotationNumber: string, invoicenumber: string | null) => ({
    code: 'invalid_state',
    message: `Quotation ${quotationNumber} is already converted to invoice ${invoicenumber}; a quotation converts once`,
  }),
});
