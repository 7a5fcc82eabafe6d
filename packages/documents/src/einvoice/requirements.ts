import { CATEGORY_RULES, documentMinorUnit } from '@bo/kernel';
import { invoiceKinds, type Party, type RenderableDocument } from '../model';
import { documentCategories } from '../taxes';

/**
 * What an e-invoice conforms to: EN 16931 alone (`ubl`, `cii`, `facturx`), or Peppol BIS Billing 3.0
 * on top of it (`peppol`, UBL), which wants the parties' Peppol ids and a buyer reference.
 */
export type EInvoiceProfile = 'en16931' | 'peppol';

/**
 * What an EN 16931 e-invoice cannot do without, named by where it is missing: `seller.vat_id`,
 * `buyer.country`… Seller and buyer names and countries are mandatory (BR-06, BR-07, BR-09, BR-11);
 * the seller's VAT id is what every category but `O` asks for (BR-S/Z/E/AE/IC/G/AF/AG-02; a tax
 * registration id or tax representative would do too, but the profile keeps a VAT id), and the
 * buyer's what reverse charge and intra-community supplies ask for (BR-AE-03, BR-IC-03; the kernel
 * refuses such a document without it earlier); a document outside the scope of VAT (`O`) states
 * neither (BR-O-02..04), so its seller is identified by its registration id (BR-CO-26); both parties' electronic addresses (BT-34, BT-49) are their emails, which
 * @e-invoice-eu/core requires; on Peppol (`profile` `peppol`) they are the parties' Peppol ids
 * instead, and the buyer reference (BT-10) is needed too (PEPPOL-EN16931-R003). The service translates `seller`/`buyer` to `organization`/`partner`
 * for its 400.
 */
export function missingForEInvoice(
  doc: Pick<RenderableDocument, 'kind' | 'draft' | 'seller' | 'buyer' | 'lines' | 'currency' | 'taxes' | 'reference'>,
  profile: EInvoiceProfile = 'en16931',
): string[] {
  const peppol = profile === 'peppol';
  const missing: string[] = [];
  // BT-5: an e-invoice states its currency; the services leave it empty when neither partner nor organization has one.
  if (!doc.currency?.trim()) missing.push('currency');
  const need = (role: 'seller' | 'buyer', party: Party, field: keyof Party) => {
    const value = party[field];
    if (typeof value !== 'string' || value.trim() === '') missing.push(`${role}.${field}`);
  };
  const categories = [...documentCategories(doc)];
  need('seller', doc.seller, 'name');
  need('seller', doc.seller, 'country');
  if (!categories.includes('O')) need('seller', doc.seller, 'vat_id');
  // Without its VAT id, a seller outside the scope of VAT is identified by its legal registration id
  // (BT-30): BR-CO-26 wants BT-29, BT-30 or BT-31.
  else need('seller', doc.seller, 'company_id');
  // On Peppol the electronic addresses are the participant ids (PEPPOL-EN16931-R020, R010), not emails.
  need('seller', doc.seller, peppol ? 'peppol_id' : 'email');
  need('buyer', doc.buyer, 'name');
  need('buyer', doc.buyer, 'country');
  if (categories.some((c) => CATEGORY_RULES[c].buyer_vat_id)) need('buyer', doc.buyer, 'vat_id');
  need('buyer', doc.buyer, peppol ? 'peppol_id' : 'email');
  // PEPPOL-EN16931-R003: a buyer reference (BT-10) or an order reference (BT-13); the invoice has the first.
  if (peppol && !doc.reference?.trim()) missing.push('reference');
  return missing;
}

/** Why a document cannot become an e-invoice at all, whatever its parties hold; null when it can. */
export function eInvoiceRefusal(doc: Pick<RenderableDocument, 'kind' | 'draft' | 'cancelled' | 'lines' | 'currency'>): string | null {
  if (!invoiceKinds.includes(doc.kind)) return `a ${doc.kind.replace('_', ' ')} is not an invoice; only PDF is available`;
  if (doc.draft) return 'a draft is not an invoice yet: validate it first (a draft renders as PDF only)';
  if (doc.cancelled) return 'a cancelled invoice is no e-invoice (it renders as PDF marked CANCELLED)';
  if (doc.lines.length === 0) return 'an invoice without lines cannot be an e-invoice (BR-16)';
  // EN 16931 writes every amount with at most two decimals (BR-DEC-*): BHD, KWD, CLF… amounts cannot be stated.
  const places = doc.currency?.trim() ? documentMinorUnit(doc.currency) : 2;
  if (places !== undefined && places > 2)
    return `amounts in ${doc.currency.trim().toUpperCase()} have ${places} decimals, and EN 16931 states amounts with at most 2 (BR-DEC rules); the PDF is still available`;
  return null;
}
