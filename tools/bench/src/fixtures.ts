import { Api, inParallel } from './api';
import { ORG } from './system';

/**
 * What the bench's documents look like: three lines, one with a discount and one tax-included. Each
 * names a catalog product (a `service`, so validations move no stock): seeding sets the ids.
 */
export const LINES = [
  { product_id: '1', product_name: 'Widget', quantity: 2, price: 49.5, tax_rate: 15, tax_included: false },
  { product_id: '2', product_name: 'Gadget', quantity: 1, price: 115, tax_rate: 15, tax_included: true },
  { product_id: '3', product_name: 'Service hour', quantity: 3, price: 80, discount: 10, tax_rate: 0, tax_included: false },
];

export const ORG_ID = String(ORG);
/** The seeded partners' currency, so their invoices' and the payments settling them. */
export const CURRENCY = 'USD';
export const SEED_CONCURRENCY = 32;
const PARTNERS = 50;
const PRODUCTS = 50;

/** The create-invoice request for a partner, as a string made by concatenation (cheap per request). */
const invoiceHead = `{"org_id":"${ORG_ID}","userid":"bench","invoicetype":"invoiceout","partner":"`;
let invoiceTail = `","line_items":${JSON.stringify(LINES)}}`;
export const invoiceRequest = (partnerId: number) => invoiceHead + partnerId + invoiceTail;

/** Points the lines at seeded catalog products (once per mode, before any document is made). */
function useLineProducts(ids: readonly number[]): void {
  LINES.forEach((line, i) => (line.product_id = String(ids[i])));
  invoiceTail = `","line_items":${JSON.stringify(LINES)}}`;
}

/** The VAT id the bench organization issues its e-invoices under, and the vendor the import finds by it. */
const EINVOICE_SELLER_VAT = 'IE6388047V';
/** A UBL document around its number (BT-1): head + number + tail. */
export interface EInvoiceTemplate {
  head: string;
  tail: string;
}

const INVOICE_ID = /"invoice":\{"id":(\d+)/;
/** The invoice id of a create-invoice reply, read without parsing the whole envelope. */
export function invoiceIdOf(body: string): number | undefined {
  const m = INVOICE_ID.exec(body);
  return m ? Number(m[1]) : undefined;
}

/**
 * The records scenarios share within one mode, seeded through the gateway on first use, outside
 * any measured window: partners, products and their location, and pools of draft and open invoices.
 */
export class Fixtures {
  private partnersP?: Promise<number[]>;
  private productsP?: Promise<{ ids: number[]; location: string }>;
  private linesP?: Promise<void>;
  private einvoiceP?: Promise<EInvoiceTemplate>;
  /** Draft invoices not used yet, one validation each; the create-invoice scenario's replies feed it too. */
  readonly drafts: number[] = [];
  /** Invoices the validate scenario opened, for payments. */
  readonly opened: number[] = [];
  private lagSeq = 0;

  constructor(readonly api: Api) {}

  /**
   * 50 customers, as the list scenario pages through (25 a page). Every scenario making documents
   * seeds them first, so the catalog products its lines name are seeded with them.
   */
  partners(): Promise<number[]> {
    this.partnersP ??= this.lineProducts().then(() =>
      inParallel(PARTNERS, 8, async (i) => {
        const body = await this.api.ok<{ partner: { id: number } }>('/crm/editpatner', {
          org_id: ORG_ID,
          userid: 'bench',
          action: 'create',
          partnername: `Seed ${i}`,
          partner_type: 'customer',
          email: `seed${i}@example.com`,
          phone: '+1 555 0100',
          currency: CURRENCY,
        });
        return body.partner.id;
      }),
    );
    return this.partnersP;
  }

  private lineProducts(): Promise<void> {
    this.linesP ??= inParallel(LINES.length, LINES.length, async (i) => {
      const body = await this.api.ok<{ product: { id: number } }>('/inventory/editproduct', {
        org_id: ORG_ID,
        userid: 'bench',
        name: LINES[i]!.product_name,
        type: 'service',
      });
      return body.product.id;
    }).then(useLineProducts);
    return this.linesP;
  }

  /** 50 products with 10 in stock at the default location. */
  products(): Promise<{ ids: number[]; location: string }> {
    this.productsP ??= (async () => {
      const locations = await this.api.ok<{ locations: Array<{ location_id: string; is_default: boolean }> }>('/inventory/ops/getdata', {
        org_id: ORG_ID,
        action: 'list_locations',
      });
      const location = (locations.locations.find((l) => l.is_default) ?? locations.locations[0])?.location_id;
      if (!location) throw new Error('seeding: the organization has no stock location');
      const ids = await inParallel(PRODUCTS, 8, async (i) => {
        const body = await this.api.ok<{ product: { id: number } }>('/inventory/editproduct', {
          org_id: ORG_ID,
          userid: 'bench',
          name: `Bench product ${i}`,
          sku: `BENCH-${i}`,
          price: 10,
          cost: 4,
          stock: 10,
        });
        return body.product.id;
      });
      return { ids, location };
    })();
    return this.productsP;
  }

  /**
   * A 20-line UBL invoice as this organization issues it, split around its number (BT-1), and the
   * supplier it names known in the same organization as a vendor (by its VAT id), its products mapped
   * by one accepted import: each import of it with a new number then makes a bill.
   */
  einvoiceTemplate(): Promise<EInvoiceTemplate> {
    this.einvoiceP ??= (async () => {
      await this.api.ok('/organization/setprofile', {
        org_id: ORG_ID,
        userid: 'bench',
        legal_name: 'Bench Ltd',
        address_line1: '1 Main Street',
        city: 'Dublin',
        postal_code: 'D02 X285',
        country: 'IE',
        vat_id: EINVOICE_SELLER_VAT,
        email: 'billing@bench.test',
      });
      const ok = <T>(path: string, body: Record<string, unknown>) => this.api.ok<T>(path, { org_id: ORG_ID, userid: 'bench', ...body });
      const customer = await ok<{ partner: { id: number } }>('/crm/editpatner', {
        action: 'create',
        partnername: 'Bench Buyer GmbH',
        partner_type: 'customer',
        country: 'DE',
        city: 'Berlin',
        address_line1: 'Strasse 1',
        tax_number: 'DE136695976',
        email: 'ap@buyer.test',
        currency: CURRENCY,
      });
      const product = await ok<{ product: { id: number } }>('/inventory/editproduct', {
        name: 'Bench import',
        type: 'service',
        sku: 'BENCH-IMPORT',
      });
      const lines = Array.from({ length: 20 }, (_, i) => ({
        product_id: String(product.product.id),
        quantity: i + 1,
        price: 10 + i * 1.25,
        tax_rate: 20,
        tax_included: false,
      }));
      const issued = await ok<{ invoice: { id: number } }>('/invoicing/invoice/new', {
        invoicetype: 'invoiceout',
        partner: String(customer.partner.id),
        line_items: lines,
      });
      await this.validate(issued.invoice.id);
      const file = await ok<{ content_base64: string }>('/invoicing/getinvoice', { id: issued.invoice.id, format: 'ubl' });
      const xml = Buffer.from(file.content_base64, 'base64').toString('utf8');
      await ok('/crm/editpatner', {
        action: 'create',
        partnername: 'Bench Ltd',
        partner_type: 'vendor',
        tax_number: EINVOICE_SELLER_VAT,
        currency: CURRENCY,
      });
      const first = await ok<{ inbound: { id: number; status: string } }>('/invoicing/inbound', {
        action: 'import',
        content_base64: file.content_base64,
      });
      if (first.inbound.status === 'needs_review') {
        await ok('/invoicing/inbound', {
          action: 'accept',
          id: first.inbound.id,
          line_products: lines.map((_, i) => ({ line: String(i + 1), product_id: product.product.id })),
        });
      }
      const number = /<cbc:ID>([^<]+)<\/cbc:ID>/.exec(xml);
      if (!number) throw new Error('seeding: the rendered UBL has no cbc:ID');
      return {
        head: xml.slice(0, number.index + '<cbc:ID>'.length),
        tail: xml.slice(number.index + number[0].length - '</cbc:ID>'.length),
      };
    })();
    return this.einvoiceP;
  }

  async createInvoice(partnerId: number): Promise<number> {
    await this.lineProducts();
    const body = await this.api.ok<{ invoice: { id: number } }>(
      '/invoicing/invoice/new',
      JSON.parse(invoiceRequest(partnerId)) as Record<string, unknown>,
    );
    return body.invoice.id;
  }

  validate(id: number): Promise<unknown> {
    return this.api.ok('/invoicing/invoice/new', { org_id: ORG_ID, id, validate_invoice: true });
  }

  /** Takes `n` drafts out of the pool, making the ones it lacks (spread over the seeded partners). */
  async takeDrafts(n: number): Promise<number[]> {
    const missing = n - this.drafts.length;
    if (missing > 0) {
      const partners = await this.partners();
      const made = await inParallel(missing, SEED_CONCURRENCY, (i) => this.createInvoice(partners[i % partners.length] as number));
      this.drafts.push(...made);
    }
    return this.drafts.splice(0, n);
  }

  /** `n` drafts each of a partner of its own, so the partner's balance moves only by that invoice. */
  lagDrafts(n: number): Promise<Array<{ id: number; partnerId: number }>> {
    return inParallel(n, SEED_CONCURRENCY, async () => {
      const seq = this.lagSeq++;
      const partner = await this.api.ok<{ partner: { id: number } }>('/crm/editpatner', {
        org_id: ORG_ID,
        userid: 'bench',
        action: 'create',
        partnername: `Lag probe ${seq}`,
        partner_type: 'customer',
      });
      return { id: await this.createInvoice(partner.partner.id), partnerId: partner.partner.id };
    });
  }

  /**
   * For each of the first `n` seeded partners, three open invoices of that partner alone (made and
   * validated now: the validate scenario's are spread over partners).
   */
  async partnerTriples(n: number): Promise<Array<{ partner: number; invoices: [number, number, number] }>> {
    const partners = (await this.partners()).slice(0, n);
    if (partners.length < n) throw new Error(`seeding: ${n} partners asked, ${partners.length} seeded`);
    const invoices = await inParallel(n * 3, SEED_CONCURRENCY, async (i) => {
      const id = await this.createInvoice(partners[Math.floor(i / 3)] as number);
      await this.validate(id);
      return id;
    });
    return partners.map((partner, p) => ({ partner, invoices: invoices.slice(p * 3, p * 3 + 3) as [number, number, number] }));
  }

  /** `n` open invoices: the latest ones the validate scenario opened, else made and validated now. */
  async openInvoices(n: number): Promise<number[]> {
    const reuse = this.opened.slice(-n);
    const drafts = await this.takeDrafts(n - reuse.length);
    await inParallel(drafts.length, SEED_CONCURRENCY, (i) => this.validate(drafts[i] as number));
    return [...reuse, ...drafts];
  }
}
