/**
 * The floor's pure parts: the list reply made from rows as the partners service shapes it, and a
 * line's amounts as an invoice stores them. No database, no broker: unit-tested beside.
 */

/** A partner row as the floor's list reads it (pg's defaults: numeric as text, timestamptz as Date). */
export interface PartnerRow {
  id: number;
  org_id: number;
  partnername: string;
  display_name: string;
  partner_type: string;
  email: string | null;
  phone: string | null;
  address: string | null;
  address_line1: string | null;
  address_line2: string | null;
  city: string | null;
  postal_code: string | null;
  region: string | null;
  country: string | null;
  tax_number: string | null;
  credit_limit: string;
  balance: string;
  committed: string;
  currency: string | null;
  payment_terms: string | null;
  contact_person: string | null;
  notes: string | null;
  version: number;
  created_at: Date;
  updated_at: Date;
  /** How many live partners the organization has (a scalar subquery, as the service counts). */
  total: string | number;
}

/** The columns the list selects, in the record's order. */
export const PARTNER_COLUMNS =
  'id, org_id, partnername, display_name, partner_type, email, phone, address, address_line1, address_line2, city, postal_code, ' +
  'region, country, tax_number, credit_limit, balance, committed, currency, payment_terms, contact_person, notes, version, created_at, updated_at';

const dateTime = (d: Date) => d.toISOString().slice(0, 19);

/** The list reply's body, as the partners service answers it: the records, then the first page's pagination. */
export function partnerPageReply(rows: readonly PartnerRow[], pageSize: number): string {
  const total = rows.length ? Number(rows[0]!.total) : 0;
  const totalPages = Math.ceil(total / pageSize);
  return JSON.stringify({
    message: rows.length ? 'Partners retrieved successfully' : 'No partners found',
    partners: rows.map((r) => ({
      id: r.id,
      orgid: r.org_id,
      partnername: r.partnername,
      display_name: r.display_name,
      partner_type: r.partner_type,
      email: r.email,
      phone: r.phone,
      address: r.address,
      address_line1: r.address_line1,
      address_line2: r.address_line2,
      city: r.city,
      postal_code: r.postal_code,
      region: r.region,
      country: r.country,
      tax_number: r.tax_number,
      credit_limit: Number(r.credit_limit),
      balance: Number(r.balance),
      committed: Number(r.committed),
      currency: r.currency,
      payment_terms: r.payment_terms,
      contact_person: r.contact_person,
      notes: r.notes,
      version: r.version,
      created_at: dateTime(r.created_at),
      updated_at: dateTime(r.updated_at),
    })),
    pagination: {
      page_number: 1,
      page_size: pageSize,
      total_items: total,
      total_pages: totalPages,
      has_next: totalPages > 1,
      has_previous: false,
    },
  });
}

/** A requested invoice line (the fields the bench's lines carry). */
export interface LineInput {
  product_id: string | number;
  product_name?: string;
  quantity: number;
  price: number;
  discount?: number;
  tax_rate?: number;
  tax_included?: boolean;
}

export interface LineAmounts {
  subtotal: number;
  tax: number;
  total: number;
}

const cents = (v: number) => Math.round(v * 100) / 100;

/** A line's amounts: quantity × price less its discount (percent); tax added, or taken out of a tax-included price. */
export function lineAmounts(line: LineInput): LineAmounts {
  const gross = cents(line.quantity * line.price * (1 - (line.discount ?? 0) / 100));
  const rate = (line.tax_rate ?? 0) / 100;
  if (line.tax_included) {
    const subtotal = cents(gross / (1 + rate));
    return { subtotal, tax: cents(gross - subtotal), total: gross };
  }
  const tax = cents(gross * rate);
  return { subtotal: gross, tax, total: cents(gross + tax) };
}

/** The amounts of every line and of the whole document. */
export function documentAmounts(lines: readonly LineInput[]): { lines: LineAmounts[]; subtotal: number; tax: number; total: number } {
  const amounts = lines.map(lineAmounts);
  const sum = (k: keyof LineAmounts) => cents(amounts.reduce((s, a) => s + a[k], 0));
  return { lines: amounts, subtotal: sum('subtotal'), tax: sum('tax'), total: sum('total') };
}
