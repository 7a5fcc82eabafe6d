import { eventually, startTestSystem, type ApiResponse, type TestSystem } from '../support/system';

/**
 * One business story told the way an existing client tells it (spec api-spec.md): through the
 * gateway over HTTP, with the spec's paths (trailing slashes as written), its request field names,
 * `org_id` and `userid` as strings and the `language` header. Each answer is checked against the
 * spec's field lists (section 2) and bodies (section 4) with exact figures; the story runs across
 * catalog, partners, sales and invoicing, step by step, each step building on the one before.
 */

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

type FieldType = 'integer' | 'number' | 'string' | 'boolean' | 'date' | 'date-time' | 'object' | 'array' | 'string|null' | 'number|null' | 'date-time|null';

/** Every field the spec lists is present with the spec's type (extra fields are allowed). */
function expectFields(record: Record<string, unknown>, fields: Record<string, FieldType>): void {
  const wrong: string[] = [];
  for (const [field, type] of Object.entries(fields)) {
    if (!(field in record)) {
      wrong.push(`${field}: missing`);
      continue;
    }
    const v = record[field];
    const nullable = type.endsWith('|null');
    if (nullable && v === null) continue;
    const base = type.replace('|null', '');
    const fits =
      base === 'integer' ? Number.isInteger(v)
      : base === 'number' ? typeof v === 'number' && Number.isFinite(v)
      : base === 'string' ? typeof v === 'string'
      : base === 'boolean' ? typeof v === 'boolean'
      : base === 'date' ? typeof v === 'string' && DATE.test(v)
      : base === 'date-time' ? typeof v === 'string' && DATE_TIME.test(v)
      : base === 'array' ? Array.isArray(v)
      : typeof v === 'object' && v !== null && !Array.isArray(v);
    if (!fits) wrong.push(`${field}: expected ${type}, got ${JSON.stringify(v)}`);
  }
  expect(wrong).toEqual([]);
}

const PAGINATION: Record<string, FieldType> = {
  page_number: 'integer', page_size: 'integer', total_items: 'integer', total_pages: 'integer', has_next: 'boolean', has_previous: 'boolean',
};
const CORS_HEADERS = ['access-control-allow-origin', 'access-control-allow-headers', 'access-control-allow-methods'];

const isoDay = (d: Date) => d.toISOString().slice(0, 10);
const today = isoDay(new Date());
const validUntil = isoDay(new Date(Date.now() + 30 * 86_400_000));
/** The 15th of the month after next: a contract start in the future, so only explicit generation makes children. */
const contractStart = (() => {
  const d = new Date();
  return isoDay(new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 2, 15)));
})();
const monthAfter = (date: string) => {
  const [y, m] = date.split('-').map(Number) as [number, number];
  return isoDay(new Date(Date.UTC(y, m, 15)));
};

describe('spec walkthrough: a client runs its business through the API', () => {
  let sys: TestSystem;

  beforeAll(async () => {
    sys = await startTestSystem();
  });
  afterAll(async () => {
    await sys?.stop();
  });

  /** A spec client's call: org_id and userid as strings, the language header. */
  const call = (path: string, body: Record<string, unknown>): Promise<ApiResponse> =>
    sys.post(path, { org_id: '1', userid: '7', ...body }, { headers: { language: 'en' } });
  const ok = async (path: string, body: Record<string, unknown>) => {
    const res = await call(path, body);
    if (res.statusCode !== 200) throw new Error(`${path} answered ${res.statusCode}: ${JSON.stringify(res.body)}`);
    // The envelope (spec 1): statusCode, CORS headers, body with a message.
    expect(res.httpStatus).toBe(200);
    expect(Object.keys(res.headers).map((h) => h.toLowerCase())).toEqual(expect.arrayContaining(CORS_HEADERS));
    return res.body;
  };
  /** A refusal as spec section 7 describes it: 400 in the envelope with a message. */
  const refused = async (path: string, body: Record<string, unknown>) => {
    const res = await call(path, body);
    expect({ httpStatus: res.httpStatus, statusCode: res.statusCode }).toEqual({ httpStatus: 400, statusCode: 400 });
    expect(res.body.message).toEqual(expect.any(String));
    return res.body;
  };

  // The story's records, filled in step by step.
  const s = {} as {
    categoryId: string;
    warehouseId: string;
    locationId: string;
    defaultLocationId: string;
    widgetId: number;
    gadgetId: number;
    customerId: number;
    vendorId: number;
    quotationId: number;
    quotationNumber: string;
    invoiceId: number;
    invoiceNumber: string;
    invoiceDate: string;
  };

  const partnerView = async (partnerId: number) => ok('/crm/partners', { partner_id: partnerId, include_transactions: true });

  it('1. sets up the catalog: a category, a warehouse, two products with stock at locations (spec 2.1-2.3, 4.1)', async () => {
    const category = await ok('/inventory/categories', { name: 'Hardware', code: 'HW', parent_id: null, taxable: true, default_account: '4000' });
    expect(category.message).toEqual(expect.any(String));
    expectFields(category.category, { id: 'string', name: 'string', code: 'string', parent_id: 'string|null', taxable: 'boolean', default_account: 'string' });
    expect(category.category).toMatchObject({ name: 'Hardware', code: 'HW', parent_id: null, taxable: true, default_account: '4000' });
    s.categoryId = category.category.id;

    const locations = (await ok('/inventory/ops/getdata', { action: 'list_locations' })).locations;
    s.defaultLocationId = locations[0].location_id;
    const warehouse = await ok('/inventory/ops/getdata', { action: 'create_warehouse', name: 'North Depot' });
    s.warehouseId = warehouse.warehouse.id;
    s.locationId = warehouse.location.location_id;

    const widget = await ok('/inventory/editproduct/', {
      name: 'Widget', description: 'Blue widget', price: 50, cost: 30, category_id: s.categoryId, sku: 'WID-1', barcode: '4006381333931',
      taxable: true, tax_rate: 15, type: 'inventory', uom: 'pcs', stock: 40, warehouse_id: s.warehouseId, location_id: s.locationId,
    });
    expect(widget.message).toEqual(expect.any(String));
    // Spec 2.1: the record returned by create.
    expectFields(widget.product, {
      id: 'integer', name: 'string', description: 'string', price: 'number', cost: 'number', category_id: 'string', sku: 'string', barcode: 'string',
      taxable: 'boolean', tax_rate: 'number', type: 'string', uom: 'string', stock: 'integer', created_at: 'date-time',
    });
    expect(widget.product).toMatchObject({
      name: 'Widget', description: 'Blue widget', price: 50, cost: 30, category_id: s.categoryId, sku: 'WID-1', barcode: '4006381333931',
      taxable: true, tax_rate: 15, type: 'inventory', uom: 'pcs', stock: 40,
    });
    s.widgetId = widget.product.id;

    const gadget = await ok('/inventory/editproduct/', {
      name: 'Gadget', description: 'Tax-included gadget', price: 115, cost: 70, category_id: s.categoryId, sku: 'GAD-1', barcode: '4006381333948',
      taxable: true, tax_rate: 15, type: 'inventory', uom: 'pcs', stock: 5,
    });
    s.gadgetId = gadget.product.id;

    // Edit: product_id plus the fields to set; the answer carries updated_at (spec 2.1).
    const edited = await ok('/inventory/editproduct/', { product_id: s.gadgetId, price: 115, description: 'Gadget, price includes tax' });
    expectFields(edited.product, {
      id: 'integer', name: 'string', description: 'string', price: 'number', cost: 'number', category_id: 'string', sku: 'string', barcode: 'string',
      taxable: 'boolean', tax_rate: 'number', type: 'string', uom: 'string', stock: 'integer', updated_at: 'date-time',
    });
    expect(edited.product).toMatchObject({ id: s.gadgetId, description: 'Gadget, price includes tax', stock: 5 });

    const list = await ok('/inventory/getproducts', {});
    expectFields(list, { products: 'array', pagination: 'object' });
    expectFields(list.pagination, PAGINATION);
    expect(list.pagination).toEqual({ page_number: 1, page_size: 25, total_items: 2, total_pages: 1, has_next: false, has_previous: false });
    const listedWidget = list.products.find((p: { id: number }) => p.id === s.widgetId);
    // Spec 2.1: the record returned by the product list (category by name).
    expectFields(listedWidget, {
      id: 'integer', name: 'string', description: 'string', price: 'number', cost: 'number', category: 'string', stock: 'integer', sku: 'string',
      barcode: 'string', image: 'string|null', taxable: 'boolean', tax_rate: 'number', type: 'string', uom: 'string', created_at: 'date-time', updated_at: 'date-time',
    });
    expect(listedWidget).toMatchObject({ category: 'Hardware', stock: 40, price: 50, sku: 'WID-1' });

    // Edit category (spec 4.1): the answer omits parent_id (spec 2.2).
    const renamed = await ok('/inventory/categories', { category_id: s.categoryId, name: 'Hardware & Tools', code: 'HW', taxable: true, default_account: '4010' });
    expect(renamed.category).toEqual({ id: s.categoryId, name: 'Hardware & Tools', code: 'HW', taxable: true, default_account: '4010' });

    // A variant (spec 2.4).
    const variant = await ok('/inventory/editproduct/', {
      action: 'create_variant', parent_product_id: s.widgetId, variant_name: 'Widget red', options: { color: 'red' }, price: 52, cost: 31, sku: 'WID-1-RED', barcode: '4006381333955',
    });
    expectFields(variant.variant, {
      id: 'integer', parent_product_id: 'integer', variant_name: 'string', options: 'object', price: 'number', cost: 'number', sku: 'string', barcode: 'string',
    });
    expect(variant.variant).toMatchObject({ parent_product_id: s.widgetId, variant_name: 'Widget red', options: { color: 'red' }, price: 52, cost: 31, sku: 'WID-1-RED', barcode: '4006381333955' });

    // A product made by mistake is deleted with the delete flag and leaves the list.
    const mistake = await ok('/inventory/editproduct/', { name: 'Widgte', price: 50, type: 'inventory' });
    const deleted = await ok('/inventory/editproduct/', { product_id: mistake.product.id, delete: true });
    expect(Object.keys(deleted)).toEqual(['message']);
    expect((await ok('/inventory/getproducts', {})).products.map((p: { name: string }) => p.name).sort()).toEqual(['Gadget', 'Widget']);
  });

  it('2. adjusts stock per location and reads the stock details (spec 2.3)', async () => {
    const adjusted = await ok('/inventory/ops/getdata', {
      action: 'stock_adjustment', product_id: s.widgetId, qty_locations: { [s.locationId]: 55, [s.defaultLocationId]: 10 },
      adjustment_type: 'increase', reference: 'GRN-100', notes: 'Delivery from supplier',
    });
    expectFields(adjusted, { message: 'string', stock_move_id: 'string', details: 'array' });
    const byLocation = Object.fromEntries(adjusted.details.map((d: { location_id: string }) => [d.location_id, d]));
    expect(byLocation).toEqual({
      [s.locationId]: { location_id: s.locationId, previous_stock: 40, new_stock: 55, change: 15 },
      [s.defaultLocationId]: { location_id: s.defaultLocationId, previous_stock: 0, new_stock: 10, change: 10 },
    });

    const details = await ok('/inventory/ops/getdata', { action: 'stock_details', product_id: s.widgetId });
    expectFields(details, {
      product_id: 'integer', product_name: 'string', current_stock: 'number', stock_details: 'array',
      min_stock_level: 'number|null', max_stock_level: 'number|null', last_stock_check: 'date-time',
    });
    expect(details).toMatchObject({ product_id: s.widgetId, product_name: 'Widget', current_stock: 65 });
    for (const row of details.stock_details) {
      expectFields(row, { warehouse_id: 'string', warehouse_name: 'string', location_id: 'string', location_name: 'string', stock_quantity: 'number' });
    }
    expect(details.stock_details.map((r: any) => [r.warehouse_name, r.location_id, r.stock_quantity]).sort()).toEqual(
      [['Main Warehouse', s.defaultLocationId, 10], ['North Depot', s.locationId, 55]].sort(),
    );
    // Product stock is the sum over locations.
    const listed = (await ok('/inventory/getproducts/', {})).products.find((p: { id: number }) => p.id === s.widgetId);
    expect(listed.stock).toBe(65);
  });

  it('3. creates a customer and a vendor (spec 2.5, 4.2)', async () => {
    const customer = await ok('/crm/editpatner', {
      action: 'create', partnername: 'Acme Corporation', display_name: 'Acme', partner_type: 'customer', email: 'billing@acme.test', phone: '+1 555 0100',
      address: '1 Main Street, Springfield', tax_number: 'US-123456', credit_limit: 10000, currency: 'USD', payment_terms: 'Net 30',
      contact_person: 'Wile E.', notes: 'Key account',
    });
    expect(customer.message).toEqual(expect.any(String));
    expectFields(customer.partner, {
      id: 'integer', orgid: 'integer', partnername: 'string', display_name: 'string', partner_type: 'string', email: 'string', phone: 'string',
      address: 'string', tax_number: 'string', credit_limit: 'number', balance: 'number', currency: 'string', payment_terms: 'string',
      contact_person: 'string', notes: 'string', created_at: 'date-time', updated_at: 'date-time',
    });
    expect(customer.partner).toMatchObject({ orgid: 1, partnername: 'Acme Corporation', display_name: 'Acme', partner_type: 'customer', credit_limit: 10000, balance: 0, currency: 'USD' });
    s.customerId = customer.partner.id;

    // display_name defaults to partnername.
    const vendor = await ok('/crm/editpatner', { action: 'create', partnername: 'Parts Supply Ltd', partner_type: 'vendor', currency: 'USD' });
    expect(vendor.partner).toMatchObject({ partnername: 'Parts Supply Ltd', display_name: 'Parts Supply Ltd', partner_type: 'vendor', balance: 0 });
    s.vendorId = vendor.partner.id;

    // Edit (spec 4.2): partner_id plus the fields to set; the rest stays.
    const edited = await ok('/crm/editpatner', { action: 'edit', partner_id: s.vendorId, email: 'ap@parts.test', payment_terms: 'Net 45' });
    expect(edited.partner).toMatchObject({ id: s.vendorId, partnername: 'Parts Supply Ltd', email: 'ap@parts.test', payment_terms: 'Net 45', currency: 'USD', balance: 0 });
    expectFields(edited.partner, { id: 'integer', orgid: 'integer', balance: 'number', created_at: 'date-time', updated_at: 'date-time' });

    // A customer entered twice is deleted (soft) and leaves the list.
    const twice = await ok('/crm/editpatner', { action: 'create', partnername: 'Acme Corp (duplicate)', partner_type: 'customer' });
    const gone = await ok('/crm/editpatner', { action: 'delete', partner_id: twice.partner.id });
    expect(Object.keys(gone)).toEqual(['message']);

    const listed = await ok('/crm/partners', { partner_type: 'customer', search: 'acme', page_size: 25, page_number: 1 });
    expect(listed.pagination).toEqual({ page_number: 1, page_size: 25, total_items: 1, total_pages: 1, has_next: false, has_previous: false });
    expect(listed.partners).toHaveLength(1);
    expectFields(listed.partners[0], {
      id: 'integer', orgid: 'integer', partnername: 'string', display_name: 'string', partner_type: 'string', email: 'string', phone: 'string',
      address: 'string', tax_number: 'string', credit_limit: 'number', balance: 'number', currency: 'string', created_at: 'date-time', updated_at: 'date-time',
    });
    expect(listed.partners[0]).toMatchObject({ id: s.customerId, partnername: 'Acme Corporation' });
  });

  it("4. quotes the spec's worked line plus a tax-included line, totals it and sends it (spec 2.6, 3, 4.3)", async () => {
    const created = await ok('/sales/addline', {
      action: 'create_quotation', partner: String(s.customerId), quotation_number: '', quotation_type: 'quotation', quotation_status: 'draft',
      quotation_date: `${today}T09:30:00`, valid_until: validUntil, comments: 'Spring order', quotation_reference: 'RFQ-2024-17',
      line_items: [
        { product_id: s.widgetId, product_name: 'Widget', description: 'Blue widget', quantity: 5, price: 50, discount: 10, tax_rate: 15, tax_included: false, subtotal: 225, tax_amount: 33.75, total: 258.75 },
        { product_id: s.gadgetId, product_name: 'Gadget', description: 'Price includes tax', quantity: 2, price: 115, discount: 0, tax_rate: 15, tax_included: true, subtotal: 200, tax_amount: 30, total: 230 },
      ],
    });
    expect(created.message).toEqual(expect.any(String));
    const q = created.quotation;
    expectFields(q, {
      id: 'integer', orgid: 'integer', partner: 'string', quotation_number: 'string', quotation_type: 'string', quotation_status: 'string',
      quotation_date: 'date-time', valid_until: 'date', comments: 'string', quotation_reference: 'string',
      subtotal: 'number', tax_amount: 'number', quotation_total: 'number', created_at: 'date-time',
    });
    expect(q).toMatchObject({
      orgid: 1, partner: String(s.customerId), quotation_number: 'QUO-00001', quotation_type: 'quotation', quotation_status: 'draft',
      quotation_date: `${today}T09:30:00`, valid_until: validUntil, comments: 'Spring order', quotation_reference: 'RFQ-2024-17',
      // 5 x 50 less 10% = 225, tax 33.75, 258.75; plus 2 x 115 tax-included = 200 + 30 = 230.
      subtotal: 425, tax_amount: 63.75, quotation_total: 488.75,
    });
    expect(q.line_items.map((l: any) => [l.product_id, l.quantity, l.price, l.discount, l.tax_rate, l.tax_included, l.subtotal, l.tax_amount, l.total])).toEqual([
      [String(s.widgetId), 5, 50, 10, 15, false, 225, 33.75, 258.75],
      [String(s.gadgetId), 2, 115, 0, 15, true, 200, 30, 230],
    ]);
    s.quotationId = q.id;
    s.quotationNumber = q.quotation_number;

    // The quotation total view (path not shown: any /sales path).
    const total = await ok('/sales/orderdetail/', { quotation_id: s.quotationId, calculate_total: true });
    expectFields(total, { quotation_id: 'integer', subtotal: 'number', tax_amount: 'number', discount_total: 'number', quotation_total: 'number', currency: 'string' });
    expect(total).toMatchObject({ quotation_id: s.quotationId, subtotal: 425, tax_amount: 63.75, discount_total: 25, quotation_total: 488.75, currency: 'USD' });

    // Send it: edit with quotation_status (path not shown).
    const sent = await ok('/sales/addline', { action: 'edit_quotation', quotation_id: s.quotationId, quotation_status: 'sent', comments: 'Sent by mail' });
    expect(sent.quotation).toEqual({
      id: s.quotationId, quotation_number: 'QUO-00001', quotation_status: 'sent', valid_until: validUntil, comments: 'Sent by mail', quotation_reference: 'RFQ-2024-17',
    });

    // An estimate the customer did not want: numbered in its own series, then cancelled (message only).
    const estimate = await ok('/sales/addline', {
      action: 'create_quotation', partner: String(s.customerId), quotation_type: 'estimate', quotation_status: 'draft',
      quotation_date: `${today}T10:00:00`, valid_until: validUntil, line_items: [],
    });
    expect(estimate.quotation).toMatchObject({ quotation_number: 'EST-00001', quotation_total: 0 });
    const withLine = await ok('/sales/addline', {
      action: 'add_line', quotation_id: estimate.quotation.id, product_id: s.widgetId, product_name: 'Widget', description: 'Blue widget', quantity: 5, price: 50, discount: 10, tax_rate: 15, tax_included: false,
    });
    expectFields(withLine.line_item, {
      id: 'integer', quotation_id: 'integer', product_id: 'string', description: 'string', quantity: 'number', price: 'number', discount: 'number',
      tax_rate: 'number', subtotal: 'number', tax_amount: 'number', total: 'number',
    });
    expect(withLine.line_item).toMatchObject({ quotation_id: estimate.quotation.id, product_id: String(s.widgetId), subtotal: 225, tax_amount: 33.75, total: 258.75 });
    const cancelledEstimate = await ok('/sales/addline', { action: 'cancel_quotation', quotation_id: estimate.quotation.id });
    expect(Object.keys(cancelledEstimate)).toEqual(['message']);
    const cancelledRows = await ok('/sales/orderdetail/', { status: 'cancelled' });
    expect(cancelledRows.quotations.map((x: any) => [x.quotation_number, x.quotation_status, x.quotation_total])).toEqual([['EST-00001', 'cancelled', 258.75]]);

    const list = await ok('/sales/orderdetail/', {});
    expectFields(list.pagination, PAGINATION);
    expect(list.pagination).toMatchObject({ page_number: 1, page_size: 25, total_items: 2 });
    expect(list.quotations[1]).toMatchObject({
      id: s.quotationId, quotation_number: 'QUO-00001', quotation_status: 'sent', quotation_total: 488.75,
      partner: { id: s.customerId, partnername: 'Acme Corporation', display_name: 'Acme' },
    });
    // search_key matches a number or the customer's name; newest first.
    const byName = await ok('/sales/orderdetail/', { search_key: 'acme' });
    expect(byName.quotations.map((x: { quotation_number: string }) => x.quotation_number)).toEqual(['EST-00001', 'QUO-00001']);
    const byNumber = await ok('/sales/orderdetail/', { search_key: 'QUO-0' });
    expect(byNumber.quotations.map((x: { id: number }) => x.id)).toEqual([s.quotationId]);
  });

  it('5. converts the quotation into a draft sales invoice; the partner has it committed', async () => {
    const converted = await ok('/sales/addline', { action: 'convert_to_invoice', quotation_id: s.quotationId, invoicetype: 'invoiceout' });
    expect(converted.message).toEqual(expect.any(String));
    expectFields(converted.invoice, {
      id: 'integer', orgid: 'integer', invoicenumber: 'string', invoicetype: 'string', partner: 'string', invoicestatus: 'string',
      subtotal: 'number', tax_amount: 'number', invoicetotal: 'number',
    });
    expect(converted.invoice).toMatchObject({
      orgid: 1, invoicenumber: 'INV-00001', invoicetype: 'invoiceout', partner: String(s.customerId), invoicestatus: 'draft',
      subtotal: 425, tax_amount: 63.75, invoicetotal: 488.75,
    });
    s.invoiceId = converted.invoice.id;
    s.invoiceNumber = converted.invoice.invoicenumber;

    const row = (await ok('/sales/orderdetail', { search_key: 'QUO-00001' })).quotations[0];
    expect(row).toMatchObject({ id: s.quotationId, quotation_status: 'converted', invoice_id: s.invoiceId, invoicenumber: 'INV-00001' });

    const view = await eventually(async () => {
      const v = await partnerView(s.customerId);
      expect(v.partner.committed).toBe(488.75);
      return v;
    });
    expect(view.partner).toMatchObject({ balance: 0, credit_limit: 10000, available_credit: 10000 });
  });

  it('6. adds a line to the invoice and validates it; the balance and transactions follow (spec 2.7, 3, 4.4)', async () => {
    const added = await ok('/invoicing/addline', {
      invoice_id: s.invoiceId, product_id: s.widgetId, product_name: 'Widget', description: 'Installation kit', quantity: 2, price: 40, discount: 0,
      tax_rate: 15, tax_included: false, subtotal: 80, tax_amount: 12, total: 92,
    });
    expect(added.message).toEqual(expect.any(String));
    expectFields(added.line_item, {
      id: 'integer', invoiceid: 'integer', product_id: 'string', description: 'string', quantity: 'number', price: 'number', discount: 'number',
      tax_rate: 'number', subtotal: 'number', tax_amount: 'number', total: 'number',
    });
    expect(added.line_item).toMatchObject({
      invoiceid: s.invoiceId, product_id: String(s.widgetId), description: 'Installation kit', quantity: 2, price: 40, discount: 0, tax_rate: 15,
      subtotal: 80, tax_amount: 12, total: 92,
    });

    const validated = await ok('/invoicing/invoice/new', { validate_invoice: true, id: s.invoiceId });
    expect(validated.message).toEqual(expect.any(String));
    expectFields(validated.invoice, { id: 'integer', invoicestatus: 'string', journal_entry_id: 'integer' });
    expect(validated.invoice).toMatchObject({ id: s.invoiceId, invoicestatus: 'open', invoicetotal: 580.75 });

    const view = await eventually(async () => {
      const v = await partnerView(s.customerId);
      expect(v.partner).toMatchObject({ balance: 580.75, committed: 0 });
      return v;
    });
    expectFields(view.partner, {
      id: 'integer', partnername: 'string', display_name: 'string', email: 'string', phone: 'string', balance: 'number', credit_limit: 'number',
      available_credit: 'number', currency: 'string',
    });
    expect(view.partner).toMatchObject({ id: s.customerId, partnername: 'Acme Corporation', display_name: 'Acme', credit_limit: 10000, available_credit: 9419.25, currency: 'USD' });
    expect(view.transactions).toHaveLength(1);
    expectFields(view.transactions[0], { id: 'integer', type: 'string', document_number: 'string', date: 'date', amount: 'number', paid: 'number', due: 'number' });
    s.invoiceDate = view.transactions[0].date;
    // The converted invoice is dated on the day of conversion.
    expect(s.invoiceDate).toBe(today);
    expect(view.transactions[0]).toMatchObject({ type: 'invoice', document_number: 'INV-00001', amount: 580.75, paid: 0, due: 580.75 });
  });

  it('7. registers a partial then a final payment; the balances view shows journals and payments (spec 2.7)', async () => {
    const partial = await ok('/invoicing/invoice/new', { register_payment: true, id: s.invoiceId, amount: 200, payment_date: today, journal: 'Bank' });
    expect(partial.invoice).toMatchObject({ invoicestatus: 'open', amount_paid: 200, due_amount: 380.75 });
    const midway = await ok('/invoicing/getinvoice', { id: s.invoiceId, include_items: true });
    expect(midway.invoices[0]).toMatchObject({ invoicetotal: 580.75, amount_paid: 200, due_amount: 380.75 });

    const final = await ok('/invoicing/invoice/new', { register_payment: true, id: s.invoiceId, amount: 380.75, payment_date: today, journal: 'Bank' });
    expect(final.invoice).toMatchObject({ invoicestatus: 'paid', amount_paid: 580.75, due_amount: 0 });

    const balances = await ok('/invoicing/getinvoice', { id: s.invoiceId, include_items: true });
    expect(balances.invoices).toHaveLength(1);
    const b = balances.invoices[0];
    expectFields(b, { id: 'integer', invoicenumber: 'string', invoicetotal: 'number', amount_paid: 'number', due_amount: 'number', journals: 'array', payjournals: 'array' });
    expect(b).toMatchObject({ id: s.invoiceId, invoicenumber: 'INV-00001', invoicetotal: 580.75, amount_paid: 580.75, due_amount: 0 });
    for (const j of [...b.journals, ...b.payjournals]) expectFields(j, { id: 'integer', journalname: 'string', journaldate: 'date', amount: 'number' });
    expect(b.journals.map((j: any) => [j.journalname, j.journaldate, j.amount])).toEqual([['Sales Journal', s.invoiceDate, 580.75]]);
    expect(b.payjournals.map((j: any) => [j.journalname, j.journaldate, j.amount])).toEqual([
      ['Bank', today, 200],
      ['Bank', today, 380.75],
    ]);
    expect(b.line_items.map((l: any) => l.total)).toEqual([258.75, 230, 92]);

    const view = await eventually(async () => {
      const v = await partnerView(s.customerId);
      expect(v.partner.balance).toBe(0);
      expect(v.transactions).toHaveLength(3);
      return v;
    });
    // Ordered by date, the invoice first on a tie.
    expect(view.transactions.map((t: any) => [t.type, t.document_number, t.date, t.amount, t.paid, t.due])).toEqual([
      ['invoice', 'INV-00001', s.invoiceDate, 580.75, 580.75, 0],
      ['payment', 'INV-00001', today, 200, 200, 0],
      ['payment', 'INV-00001', today, 380.75, 380.75, 0],
    ]);
  });

  it('8. books a vendor bill and a credit note, and lists invoices with the spec filters (spec 4.4)', async () => {
    const bill = await ok('/invoicing/invoice/new', {
      invoicetype: 'invoicein', partner: String(s.vendorId), invoicenumber: '', invoicedatetime: '2025-06-05T08:00:00', invoicestatus: 'draft',
      comments: 'Parts for stock', invoicereference: 'SUP-778', invoiceterms: 'Net 30', invoicedue: '2099-07-05', subtotal: 0, tax_amount: 0, invoicetotal: 0,
      sourceid: '', sourcenumber: '', sourcetype: '', chartofaccounts: '5000 Purchases', invoicejournal: 'Purchase Journal', tradeaccount: '2000 Accounts Payable',
      line_items: [{ product_id: s.widgetId, product_name: 'Widget', description: 'Restock', quantity: 20, price: 30, discount: 0, tax_rate: 15, tax_included: false, subtotal: 600, tax_amount: 90, total: 690 }],
    });
    expect(bill.message).toEqual(expect.any(String));
    // Spec 2.7: the create response.
    expectFields(bill.invoice, {
      id: 'integer', orgid: 'integer', partner: 'string', invoicenumber: 'string', invoicetype: 'string', userid: 'integer', invoicestatus: 'string',
      comments: 'string', invoicereference: 'string', invoiceterms: 'string', invoicedue: 'date', subtotal: 'number', tax_amount: 'number',
      invoicetotal: 'number', chartofaccounts: 'string', invoicejournal: 'string', tradeaccount: 'string', created_at: 'date-time',
    });
    expect(bill.invoice).toMatchObject({
      orgid: 1, partner: String(s.vendorId), invoicenumber: 'BILL-00001', invoicetype: 'invoicein', userid: 7, invoicestatus: 'draft',
      comments: 'Parts for stock', invoicereference: 'SUP-778', invoiceterms: 'Net 30', invoicedue: '2099-07-05',
      subtotal: 600, tax_amount: 90, invoicetotal: 690, chartofaccounts: '5000 Purchases', invoicejournal: 'Purchase Journal', tradeaccount: '2000 Accounts Payable',
    });
    await ok('/invoicing/invoice/new', { validate_invoice: true, id: bill.invoice.id });
    await eventually(async () => expect((await partnerView(s.vendorId)).partner.balance).toBe(-690));

    const credit = await ok('/invoicing/invoice/new', {
      invoicetype: 'creditout', partner: String(s.customerId), invoicedatetime: '2025-06-25T11:00:00', invoicestatus: 'draft', comments: 'One gadget returned',
      invoicereference: 'INV-00001',
      line_items: [{ product_id: s.gadgetId, product_name: 'Gadget', quantity: 1, price: 115, discount: 0, tax_rate: 15, tax_included: true }],
    });
    expect(credit.invoice).toMatchObject({ invoicenumber: 'CRN-00001', invoicetype: 'creditout', subtotal: 100, tax_amount: 15, invoicetotal: 115 });
    await ok('/invoicing/invoice/new', { validate_invoice: true, id: credit.invoice.id });
    const view = await eventually(async () => {
      const v = await partnerView(s.customerId);
      expect(v.partner.balance).toBe(-115);
      return v;
    });
    expect(view.partner.available_credit).toBe(10115);

    // The list with the spec's filters.
    const listed = await ok('/invoicing/listinvoices/', {
      include_items: false, partner_ids: [String(s.customerId)], sort_by: 'number', sort_order: 'desc', page_size: 25, page_number: 1,
    });
    expect(listed.message).toEqual(expect.any(String));
    expectFields(listed.pagination, PAGINATION);
    expect(listed.pagination).toEqual({ page_number: 1, page_size: 25, total_items: 2, total_pages: 1, has_next: false, has_previous: false });
    expect(listed.invoices.map((i: any) => [i.invoicenumber, i.invoicestatus, i.invoicetotal, i.due_amount])).toEqual([
      ['INV-00001', 'paid', 580.75, 0],
      ['CRN-00001', 'open', 115, 115],
    ]);
    const row = listed.invoices[0];
    expectFields(row, {
      id: 'integer', orgid: 'integer', invoicenumber: 'string', invoicetype: 'string', invoicestatus: 'string', partner: 'object',
      invoicedatetime: 'date-time', invoicetotal: 'number', due_amount: 'number', creator: 'string', recurring: 'object',
    });
    expect(row).toMatchObject({ id: s.invoiceId, orgid: 1, invoicetype: 'invoiceout', creator: '7', recurring: { enabled: false } });
    expect(row.partner).toEqual({ id: s.customerId, partnername: 'Acme Corporation', display_name: 'Acme', imageUrl: null });

    const withItems = await ok('/invoicing/listinvoices/', { include_items: true, search_key: 'INV-00001' });
    expect(withItems.invoices.map((i: any) => [i.invoicenumber, i.line_items.map((l: any) => l.total)])).toEqual([['INV-00001', [258.75, 230, 92]]]);

    const numbers = async (filters: Record<string, unknown>) =>
      (await ok('/invoicing/listinvoices/', { include_items: false, sort_by: 'number', sort_order: 'desc', ...filters })).invoices.map((i: any) => i.invoicenumber);
    expect(await numbers({ status_filter: 'paid' })).toEqual(['INV-00001']);
    expect(await numbers({ status_filter: 'open' })).toEqual(['CRN-00001', 'BILL-00001']);
    expect(await numbers({ date_from: '2025-06-01', date_to: '2025-06-30' })).toEqual(['CRN-00001', 'BILL-00001']);
    expect(await numbers({ amount_min: 500, amount_max: 600 })).toEqual(['INV-00001']);
    expect(await numbers({ search_key: 'BILL' })).toEqual(['BILL-00001']);
    expect(await numbers({ partner_ids: [String(s.vendorId), String(s.customerId)], status_filter: 'open', amount_min: 100.5 })).toEqual(['CRN-00001', 'BILL-00001']);
  });

  it('9. runs a recurring contract: create, pause, resume, generate, cancel (spec 2.7, 3, 4.4)', async () => {
    const created = await ok('/invoicing/invoice/new', {
      invoicetype: 'invoiceout', partner: String(s.customerId), invoicedatetime: `${today}T08:00:00`, invoicestatus: 'draft', comments: 'Monthly maintenance',
      line_items: [{ product_id: s.gadgetId, product_name: 'Gadget', description: 'Maintenance', quantity: 1, price: 115, discount: 0, tax_rate: 15, tax_included: true }],
      recurring: { enabled: true, is_parent: true, frequency: 'monthly', start_date: contractStart, next_run_date: contractStart, occurrences_count: 12, status: 'active' },
    });
    const contract = created.invoice;
    expectFields(contract, { id: 'integer', invoicenumber: 'string', recurring: 'object' });
    expectFields(contract.recurring, {
      enabled: 'boolean', is_parent: 'boolean', frequency: 'string', start_date: 'date', next_run_date: 'date', occurrences_count: 'integer', status: 'string',
    });
    expect(contract).toMatchObject({ invoicenumber: 'INV-00002', invoicetotal: 115 });
    expect(contract.recurring).toMatchObject({ enabled: true, is_parent: true, frequency: 'monthly', start_date: contractStart, next_run_date: contractStart, occurrences_count: 12, status: 'active' });
    const id = contract.id;

    const paused = await ok('/invoicing/invoice/new', { pause_recurring: true, id });
    expect(paused.invoice).toMatchObject({ id, recurring: { status: 'paused' } });
    const resumed = await ok('/invoicing/invoice/new', { resume_recurring: true, id });
    expect(resumed.invoice).toMatchObject({ id, recurring: { status: 'active', next_run_date: contractStart } });

    const generated = await ok('/invoicing/invoice/new', { generate_child_invoice: true, id });
    expect(generated.invoice.recurring).toMatchObject({ status: 'active', next_run_date: monthAfter(contractStart) });
    expect(generated.child).toMatchObject({
      invoicenumber: 'INV-00003', invoicetype: 'invoiceout', invoicestatus: 'draft', partner: String(s.customerId), invoicetotal: 115,
      invoicedatetime: expect.stringMatching(new RegExp(`^${contractStart}T`)),
    });
    expect(generated.child.recurring).toMatchObject({ parent_id: id });

    const cancelled = await ok('/invoicing/invoice/new', { cancel_recurring: true, id, cancellation_reason: 'Customer moved to annual plan' });
    expect(cancelled.invoice).toMatchObject({ id, recurring: { status: 'cancelled', cancellation_reason: 'Customer moved to annual plan' } });
    // A cancelled contract makes no more children, and says why.
    await refused('/invoicing/invoice/new', { generate_child_invoice: true, id });

    const listed = await ok('/invoicing/listinvoices/', { search_key: 'INV-0000', sort_by: 'number', sort_order: 'desc' });
    expect(listed.invoices.map((i: any) => [i.invoicenumber, i.recurring.enabled])).toEqual([
      ['INV-00003', false],
      ['INV-00002', true],
      ['INV-00001', false],
    ]);
  });

  it('10. refuses what spec section 7 refuses, with its messages, changing nothing', async () => {
    // 7.2: a SKU that already exists.
    const before = (await ok('/inventory/getproducts', {})).pagination.total_items;
    const dupSku = await refused('/inventory/editproduct/', { name: 'Widget copy', price: 1, sku: 'WID-1', type: 'inventory', stock: 3 });
    expect(dupSku.message).toMatch(/SKU .*already exists/i);
    expect((await ok('/inventory/getproducts', {})).pagination.total_items).toBe(before);
    expect((await ok('/inventory/ops/getdata', { action: 'stock_details', product_id: s.widgetId })).current_stock).toBe(65);

    // 7.3: a recurring invoice without a frequency.
    const invoicesBefore = (await ok('/invoicing/listinvoices/', {})).pagination.total_items;
    const noFrequency = await refused('/invoicing/invoice/new', {
      invoicetype: 'invoiceout', partner: String(s.customerId), invoicestatus: 'draft',
      line_items: [{ product_id: s.widgetId, quantity: 1, price: 50, tax_rate: 15, tax_included: false }],
      recurring: { enabled: true, is_parent: true, start_date: contractStart, status: 'active' },
    });
    expect(noFrequency.message).toBe('invalid recurring configuration: frequency is required');
    // A form that leaves the frequency unset sends it empty: the same refusal.
    const emptyFrequency = await refused('/invoicing/invoice/new', {
      invoicetype: 'invoiceout', partner: String(s.customerId), invoicestatus: 'draft',
      recurring: { enabled: true, is_parent: true, frequency: '', start_date: contractStart, status: 'active' },
    });
    expect(emptyFrequency.message).toBe('invalid recurring configuration: frequency is required');
    expect((await ok('/invoicing/listinvoices/', {})).pagination.total_items).toBe(invoicesBefore);

    // 7.4: cancelling an invoice that is neither draft nor proforma.
    const cancel = await refused('/invoicing/invoice/new', { cancel_invoice: true, id: s.invoiceId });
    expect(cancel.code).toBe('invalid_state');
    const after = (await ok('/invoicing/getinvoice', { id: s.invoiceId })).invoices[0];
    expect(after).toMatchObject({ invoicestatus: 'paid', amount_paid: 580.75, due_amount: 0 });
    expect((await partnerView(s.customerId)).partner.balance).toBe(-115);

    // And a draft can be cancelled, with a message confirming it (spec 3).
    const draft = await ok('/invoicing/invoice/new', {
      invoicetype: 'invoiceout', partner: String(s.customerId), invoicestatus: 'draft',
      line_items: [{ product_id: s.widgetId, quantity: 1, price: 50, tax_rate: 15, tax_included: false }],
    });
    const cancelledDraft = await ok('/invoicing/invoice/new', { cancel_invoice: true, id: draft.invoice.id });
    expect(cancelledDraft.message).toMatch(/cancel/i);
    expect((await ok('/invoicing/getinvoice', { id: draft.invoice.id })).invoices[0].invoicestatus).toBe('cancelled');
  });
});
