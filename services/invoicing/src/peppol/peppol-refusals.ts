import { defineRefusals } from '@bo/runtime';

/** Every refusal of sending by Peppol, by name (an invoice not found answers 404 there, outside these). */
export const peppolRefusals = defineRefusals('peppol', {
  /** A document that is not an issued invoice or credit note of the organization. */
  notSendable: (invoicenumber: string) => ({
    code: 'invalid_state',
    message: `Invoice ${invoicenumber}: only an issued invoice or credit note of the organization is sent by Peppol`,
  }),
  /** An issued document whose Peppol file was not rendered yet. */
  peppolDocumentNotIssued: (invoicenumber: string) => ({
    code: 'invalid_state',
    message: `Invoice ${invoicenumber}: its Peppol document was not issued yet; render it first (getinvoice with format "peppol")`,
  }),
});
