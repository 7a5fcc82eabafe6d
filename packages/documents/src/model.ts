import type { TaxDocument } from '@bo/kernel';

/**
 * What a rendered document is made from: a plain model the services fill from their own records
 * (invoicing from an invoice, sales from a quotation), so rendering knows no database, no service
 * and no HTTP. Money and quantities are exact decimal strings as PostgreSQL returns numerics; the
 * line amounts are the ones the service computed and stored, and the taxes the kernel's
 * (`taxes`), never recomputed here.
 */

/** Sales and invoicing documents as a reader knows them. */
export const documentKinds = ['invoice', 'credit_note', 'vendor_bill', 'vendor_credit_note', 'quotation', 'proforma', 'estimate'] as const;
export type DocumentKind = (typeof documentKinds)[number];

/** Kinds that are invoices in the EN 16931 sense (an e-invoice can be made of them). */
export const invoiceKinds: readonly DocumentKind[] = ['invoice', 'credit_note', 'vendor_bill', 'vendor_credit_note'];
export const creditNoteKinds: readonly DocumentKind[] = ['credit_note', 'vendor_credit_note'];

/** A party with a postal address, as the organization profile and the partner read model keep them. */
export interface Party {
  /** Legal (registration) name. */
  name: string;
  trading_name?: string | null;
  /** Street lines, first to last; empty lines are ignored. */
  address_lines?: readonly (string | null | undefined)[];
  city?: string | null;
  postal_code?: string | null;
  /** State, province, county. */
  region?: string | null;
  /** ISO 3166-1 alpha-2. */
  country?: string | null;
  vat_id?: string | null;
  /** Legal registration id (company register number). */
  company_id?: string | null;
  email?: string | null;
  phone?: string | null;
  /** Peppol participant id, `<EAS scheme>:<identifier>` (`0208:0123456749`): the electronic address on Peppol documents. */
  peppol_id?: string | null;
  /** The record is deleted: only its name is left, and nobody can complete it for an e-invoice. */
  deleted?: boolean;
}

export interface DocumentLine {
  /** Product name (snapshot taken when the line was made). */
  name: string;
  description?: string | null;
  sku?: string | null;
  /** Unit of measure as the catalog names it (`hour`, `kg`, `piece`…); mapped to UN/ECE Rec 20 for e-invoices. */
  unit?: string | null;
  quantity: string;
  /** Unit price as entered: before tax, or including it when `tax_included`. */
  price: string;
  /** Percentage 0–100. */
  discount: string;
  /** Percentage 0–100. */
  tax_rate: string;
  tax_included: boolean;
  /** Net amount (before tax, after discount), rounded to cents by the service. */
  subtotal: string;
  tax_amount: string;
  /** subtotal + tax_amount. */
  total: string;
}

export interface PaymentAccount {
  iban: string;
  bic?: string | null;
  /** Account holder, when not the seller's name. */
  name?: string | null;
}

/** The seller's accounting currency on a document in another one (make it with `accountingCurrency`). */
export interface AccountingCurrency {
  /** BT-6, ISO 4217. */
  currency: string;
  /** Units of the accounting currency per unit of the document's. */
  exchange_rate: string;
  /** BT-111: each category's VAT at exchange_rate, rounded half-up to the accounting currency's minor unit, summed (kernel `vatInAccountingCurrency`). */
  tax_total: string;
}

export interface RenderableDocument {
  kind: DocumentKind;
  number: string;
  /** Draft documents render as PDF with a DRAFT marking and never as e-invoices. */
  draft: boolean;
  /** Cancelled documents render as PDF marked CANCELLED and never as e-invoices. */
  cancelled?: boolean;
  /** YYYY-MM-DD: the document date (also the fixed creation date of the PDF, for determinism). */
  issue_date: string;
  due_date?: string | null;
  /** Quotations: the date the offer ends. */
  valid_until?: string | null;
  /** ISO 4217; empty when unknown (the PDF then shows plain amounts, and no e-invoice can be made). */
  currency: string;
  payment_terms?: string | null;
  notes?: string | null;
  /**
   * BT-83, the remittance information the buyer quotes when paying: an invoice's ISO 11649
   * creditor reference (`RF…`, electronic form). Absent, the document number is quoted.
   */
  payment_reference?: string | null;
  /** The buyer's reference (purchase order, their reference). */
  reference?: string | null;
  /** Credit notes: the invoice they credit, when known. */
  credited_invoice?: { number: string; issue_date?: string | null } | null;
  seller: Party;
  buyer: Party;
  lines: readonly DocumentLine[];
  totals: { subtotal: string; tax_amount: string; total: string };
  /**
   * The document's VAT as the kernel's decideDocumentTaxes states it (docs/invoicing.md, "Taxes and
   * rounding"): per line (in the order of `lines`) its category, rate, net, VAT and gross; the
   * document-level allowances and charges (BG-20, BG-21); the VAT breakdown per category and rate
   * with its exemption reason and code (BG-23); the totals BT-106 to BT-115, rounding amount
   * included; and the currency's minor unit. The renderers print these figures as they are.
   * Absent: a document from before VAT categories, which renders from its stored lines and `totals`
   * (each line `S` or `Z` by its rate, the breakdown summing the lines' stored taxes).
   */
  taxes?: TaxDocument | null;
  /** A document in a currency other than the seller's accounting currency states its VAT total in that one too (BT-6, BT-111). */
  accounting?: AccountingCurrency | null;
  /**
   * Where and when the supply was delivered (BT-72, BT-80). An intra-community supply (`K`) states
   * both (BR-IC-11, BR-IC-12): absent, the issue date and the buyer's country.
   */
  delivery?: { date?: string | null; country?: string | null } | null;
  /** Paid so far (invoices); amount due = total - paid. */
  amount_paid?: string | null;
  /** Where the buyer pays: the seller's account. Never shown on credit notes, where the seller owes the buyer. */
  payment_account?: PaymentAccount | null;
  /** The rendering organization's logo (PNG bytes), shown at the top of the PDF. */
  logo_png?: Uint8Array | null;
  /** BCP 47 locale for number and date formatting; `en-GB` when absent. */
  locale?: string | null;
}

/** How a render reports what it left out without failing (a logo it cannot draw). */
export interface RenderOptions {
  /** Told each thing left out, in a sentence; the services log it as a warning. */
  warn?: (message: string) => void;
}

/**
 * What a document shows of its parties and how it is paid, apart from its own rows: the seller and
 * buyer, the account to pay into, the logo and the currency. Issued documents freeze it, so their
 * renders never change whatever is edited afterwards; drafts take it as it is now.
 */
export type DocumentPartiesView = Pick<RenderableDocument, 'currency' | 'seller' | 'buyer' | 'payment_account' | 'logo_png'>;
