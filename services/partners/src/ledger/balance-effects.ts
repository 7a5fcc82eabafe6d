import { invoicing, type partners } from '@bo/contracts';
import { dec, type Dec, type DecimalLike } from '@bo/kernel';

type InvoiceType = (typeof invoicing.invoiceTypes)[number];
type TransactionType = (typeof partners.partnerTransactionTypes)[number];

const TRANSACTION_TYPE: Record<InvoiceType, TransactionType> = {
  invoiceout: 'invoice',
  creditout: 'credit_note',
  invoicein: 'bill',
  creditin: 'vendor_credit',
};

export function documentEffect(type: InvoiceType, total: DecimalLike): Dec {
  return dec(total).times(invoicing.balanceSign[type]);
}

/** What a document does to what the partner owes as a customer: vendor documents nothing. */
export function receivableEffect(type: InvoiceType, total: DecimalLike): Dec {
  return dec(total).times(invoicing.receivableSign[type]);
}

/** A payment settles its document, so it moves the balance back the other way. */
export function paymentEffect(type: InvoiceType, amount: DecimalLike): Dec {
  return dec(amount).times(-invoicing.balanceSign[type]);
}

export function transactionTypeOf(type: InvoiceType): TransactionType {
  return TRANSACTION_TYPE[type];
}

/** A payment on a customer document moves the receivable back; one on a vendor document leaves it alone. */
export function paymentReceivableEffect(type: InvoiceType, amount: DecimalLike): Dec {
  return dec(amount).times(-invoicing.receivableSign[type]);
}
