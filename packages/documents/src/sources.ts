import type { organization, partners } from '@bo/contracts';
import type { StoredLine } from '@bo/kernel';
import type { EInvoiceRefused } from './einvoice/render';
import type { DocumentLine, Party, RenderableDocument } from './model';

/**
 * Parties from the records the services receive: the organization profile (partners service,
 * `partners.organization.get`) and a partner record (`partners.partner.get`). The structured
 * address is used when the partner has one, else the free-text address, line by line.
 */
export function organizationParty(p: organization.ProfileRecord): Party {
  return {
    name: p.legal_name ?? p.trading_name ?? '',
    trading_name: p.trading_name,
    address_lines: [p.address_line1, p.address_line2],
    city: p.city,
    postal_code: p.postal_code,
    country: p.country,
    vat_id: p.vat_id,
    company_id: p.company_id,
    email: p.email,
    phone: p.phone,
    peppol_id: p.peppol_id ?? null,
  };
}

export function partnerParty(p: partners.PartnerRecord): Party {
  const structured = [p.address_line1, p.address_line2, p.city, p.postal_code].some((v) => v && v.trim() !== '');
  return {
    name: p.partnername,
    trading_name: p.display_name,
    address_lines: structured ? [p.address_line1, p.address_line2] : (p.address ?? '').split(/\r?\n/),
    city: p.city,
    postal_code: p.postal_code,
    region: p.region,
    country: p.country,
    vat_id: p.tax_number,
    email: p.email,
    phone: p.phone,
    peppol_id: p.peppol_id ?? null,
  };
}

/** The organization's logo, decoded from the profile's base64; null without one. */
export function organizationLogo(p: organization.ProfileRecord): Uint8Array | null {
  return p.logo_png ? Buffer.from(p.logo_png, 'base64') : null;
}

/** Where each party field comes from, so a refusal names the field the user sets. */
const organizationFields: Record<Exclude<keyof Party, 'deleted'>, string> = {
  name: 'legal_name',
  trading_name: 'trading_name',
  address_lines: 'address_line1',
  city: 'city',
  postal_code: 'postal_code',
  region: 'region',
  country: 'country',
  vat_id: 'vat_id',
  company_id: 'company_id',
  email: 'email',
  phone: 'phone',
  peppol_id: 'peppol_id',
};
const partnerFields: Record<Exclude<keyof Party, 'deleted'>, string> = {
  ...organizationFields,
  name: 'partnername',
  trading_name: 'display_name',
  vat_id: 'tax_number',
  company_id: 'company_id',
};

export type PartySource = 'organization' | 'partner';

/**
 * `seller.vat_id`, `buyer.country`… as the user knows them: `organization.vat_id`, `partner.country`.
 * Who the seller is depends on the document: the organization on what it issues, the partner on
 * vendor bills and vendor credit notes.
 */
export function sourceFieldNames(missing: readonly string[], seller: PartySource): string[] {
  const buyer: PartySource = seller === 'organization' ? 'partner' : 'organization';
  return missing.map((path) => {
    // The document's currency is the partner's, else the organization's default: the default is what to set.
    if (path === 'currency') return 'organization.default_currency';
    // The buyer's reference (BT-10) is the invoice's own field.
    if (path === 'reference') return 'invoicereference';
    const [role, field] = path.split('.') as ['seller' | 'buyer', Exclude<keyof Party, 'deleted'>];
    // Fields of the document itself (`lines[2].name`, `notes`) are named as they are.
    if (role !== 'seller' && role !== 'buyer') return path;
    const source = role === 'seller' ? seller : buyer;
    return `${source}.${(source === 'organization' ? organizationFields : partnerFields)[field] ?? field}`;
  });
}

/** The party that issues the document: the organization, except on what vendors sent it. */
export function sellerSource(kind: RenderableDocument['kind']): PartySource {
  return kind === 'vendor_bill' || kind === 'vendor_credit_note' ? 'partner' : 'organization';
}

/** A stored line as sales and invoicing keep it (numerics as strings), with its catalog snapshot; where its stock moves is no part of a render. */
export type StoredDocumentLine = Omit<StoredLine, 'variant_id' | 'location_id'>;

export function documentLines(rows: readonly StoredDocumentLine[]): DocumentLine[] {
  return rows.map((r) => ({
    // A line made before snapshots has no name: its description, else the product id, names it.
    name: r.product_name ?? r.description ?? `Product ${r.product_id}`,
    description: r.product_name ? r.description : null,
    sku: r.sku,
    unit: r.uom,
    quantity: r.quantity,
    price: r.price,
    discount: r.discount,
    tax_rate: r.tax_rate,
    tax_included: r.tax_included,
    subtotal: r.subtotal,
    tax_amount: r.tax_amount,
    total: r.total,
  }));
}

/** A refusal as the envelope's 400 carries it: the message, and one error per missing field named as the user sets it. */
export interface RefusalBody {
  /** `invalid_state` when the document cannot be an e-invoice (draft, quotation…), `validation_failed` when data is missing. */
  code: 'invalid_state' | 'validation_failed';
  message: string;
  errors?: { field: string; message: string }[];
}

export function refusalBody(refusal: EInvoiceRefused, kind: RenderableDocument['kind']): RefusalBody {
  if (refusal.deleted) {
    const seller = sellerSource(kind);
    const source = refusal.deleted === 'seller' ? seller : seller === 'organization' ? 'partner' : 'organization';
    const message = `the ${source} is deleted, so the data an e-invoice needs (country, email…) can no longer be set on it; the PDF is still available`;
    return { code: 'invalid_state', message: `No e-invoice: ${message}`, errors: [{ field: source, message }] };
  }
  if (refusal.undrawable.length > 0) {
    const fields = sourceFieldNames(
      refusal.undrawable.map((u) => u.field),
      sellerSource(kind),
    );
    return {
      code: 'validation_failed',
      message: `Factur-X is PDF/A, which cannot show characters its fonts lack: ${fields.join(', ')} hold some (the fonts cover Latin, Greek and Cyrillic); use ubl or cii, or pdf, which shows them as empty boxes`,
      errors: refusal.undrawable.map((u, i) => ({
        field: fields[i]!,
        message: `${fields[i]} holds characters the PDF's fonts cannot draw (${u.characters.join(' ')}), which PDF/A forbids`,
      })),
    };
  }
  if (refusal.missing.length === 0) return { code: 'invalid_state', message: `No e-invoice: ${refusal.message}` };
  const fields = sourceFieldNames(refusal.missing, sellerSource(kind));
  return {
    code: 'validation_failed',
    message: `An e-invoice needs ${fields.join(', ')}: set them on the organization profile${fields.includes('invoicereference') ? ', the partner or the invoice' : ' or the partner'}`,
    errors: fields.map((field) => ({ field, message: `${field} is required for an e-invoice` })),
  };
}
