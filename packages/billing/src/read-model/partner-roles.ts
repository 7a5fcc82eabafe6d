import type { invoicing, partners, sales } from '@bo/contracts';
import { documentPartnerRefusals } from '../billing-refusals';

type PartnerType = (typeof partners.partnerTypes)[number];
export type DocumentKind = sales.QuotationType | (typeof invoicing.invoiceTypes)[number];

/**
 * Who a document may name (spec 2.5): the organization sells to customers (quotations, customer
 * invoices and credit notes) and buys from vendors (vendor bills and vendor credits); `both` is each.
 */
const NEEDS: Record<DocumentKind, 'customer' | 'vendor'> = {
  quotation: 'customer',
  proforma: 'customer',
  estimate: 'customer',
  invoiceout: 'customer',
  creditout: 'customer',
  invoicein: 'vendor',
  creditin: 'vendor',
};

const DOCUMENT_NAME: Record<DocumentKind, string> = {
  quotation: 'a quotation',
  proforma: 'a proforma',
  estimate: 'an estimate',
  invoiceout: 'a customer invoice (invoiceout)',
  creditout: 'a customer credit note (creditout)',
  invoicein: 'a vendor bill (invoicein)',
  creditin: 'a vendor credit note (creditin)',
};

/** Why `partnerType` cannot be named on a document of `kind`, or undefined when it can. */
export function partnerRoleProblem(partnerId: number, partnerType: PartnerType, kind: DocumentKind): string | undefined {
  const needed = NEEDS[kind];
  if (partnerType === 'both' || partnerType === needed) return undefined;
  return `partner ${partnerId} is a ${partnerType}; ${DOCUMENT_NAME[kind]} needs a ${needed} or both partner`;
}

/** Refuses, as a 400 naming `field`, a partner whose type does not fit the document. */
export function requirePartnerRole(partner: { id: number; partner_type: PartnerType }, kind: DocumentKind, field = 'partner'): void {
  const problem = partnerRoleProblem(partner.id, partner.partner_type, kind);
  if (problem) throw documentPartnerRefusals.partnerRoleMismatch(field, problem);
}
