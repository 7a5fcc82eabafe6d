import type { InboundRecord } from '../invoicing/inbound';
import { addDays, step, type ExampleStep, type Reply } from './scene';
import { base64Of, RECEIVED_UBL } from './received';

/**
 * A webhook endpoint's life, told last so no earlier step's event is queued for it: made (its secret
 * answered once), listed, narrowed, its log read, its secret rotated, failures sent again, a ping and
 * its first attempt, and its deletion. The ping's event id is new each time (shown cut short). The
 * example host resolves to a public address when the endpoint is made (a host that does not is
 * refused), and no longer by the ping (example.com has no such name: tests/e2e/api-examples.e2e.test.ts
 * plays both through a nameserver of its own), so the attempt fails at once, and is tried again 5 s later.
 */
export function webhookSteps(today: string, writer: { org_id: '1'; userid: '1' }, reader: { org_id: '1' }): ExampleStep[] {
  const at = `${today}T09:00:00`;
  const endpoint = {
    id: 1,
    url: 'https://hooks.example.com/backoffice',
    description: 'Accounting sync',
    events: ['invoicing.invoice.*'],
    status: 'enabled' as const,
    disabled_reason: null,
    disabled_at: null,
    previous_secret_expires_at: null,
    version: 1,
    created_at: at,
    updated_at: at,
  };
  const narrowed = { ...endpoint, events: ['invoicing.invoice.validated', 'invoicing.invoice.paid'], version: 2 };
  const page = { page_number: 1, page_size: 25, total_items: 1, total_pages: 1, has_next: false, has_previous: false };
  const received: InboundRecord = {
    id: 1,
    status: 'needs_review',
    syntax: 'ubl',
    customization_id: 'urn:cen.eu:en16931:2017',
    invoice_number: 'TOSL110',
    issue_date: '2013-04-10',
    currency: 'DKK',
    seller: { name: 'SellerCompany', vat_id: 'DK123456789MVA', endpoint_id: null, partner_id: null },
    totals: { line_extension: '4000.00', tax_exclusive: '4000.00', tax: '675.00', tax_inclusive: '4675.00', payable: '4675.00' },
    payment: { due_date: '2013-05-10', terms: null, means_code: null, iban: null, bic: null, account_name: null, reference: null },
    validation: { fatal: [], warnings: [] },
    invoice_id: null,
    sha256: '60623574b3ed54621f0d350150b5b148653e6b6f7f286921d948215c8699098d',
    review_reasons: [
      'supplier: no partner has the VAT id DK123456789MVA, endpoint (none) or registration (none), and inbound_create_partners is off',
      'line 1: no product mapped for "Printing paper" (no seller item id or standard id)',
      'line 2: no product mapped for "Parker Pen" (no seller item id or standard id)',
      'line 3: no product mapped for "American Cookies" (no seller item id or standard id)',
    ],
    notes: [],
    filename: 'TOSL110.xml',
    rejection_reason: null,
    received_at: `${today}T09:00:00`,
  };
  const sellerCompany: Reply<'partners.partner.create'>['partner'] = {
    id: 3,
    orgid: 1,
    partnername: 'SellerCompany',
    display_name: 'SellerCompany',
    partner_type: 'vendor',
    email: null,
    phone: null,
    address: null,
    address_line1: null,
    address_line2: null,
    city: null,
    postal_code: null,
    region: null,
    country: null,
    tax_number: 'DK123456789MVA',
    credit_limit: 0,
    balance: 0,
    committed: 0,
    currency: null,
    payment_terms: null,
    contact_person: null,
    notes: null,
    peppol_id: null,
    version: 1,
    created_at: `${today}T09:00:00`,
    updated_at: `${today}T09:00:00`,
    bank_accounts: [],
    dunning_blocked: false,
  };
  const receivedAgain: InboundRecord = {
    ...received,
    id: 2,
    seller: { ...received.seller, partner_id: 3 },
    sha256: 'e0ceb33c36b2a80d6f975b0d94974a000fa87b17a44e9b56726dc08f27ec7d6a',
    review_reasons: received.review_reasons.slice(1),
  };
  const ping = {
    id: 1,
    endpoint_id: 1,
    event_id: '…',
    event_type: 'webhook.ping',
    status: 'pending' as const,
    attempts: 0,
    last_attempt_at: null,
    last_http_status: null,
    last_duration_ms: null,
    last_error: null,
    next_attempt_at: at,
    delivered_at: null,
    created_at: at,
  };
  const unresolved = 'refused: host hooks.example.com does not resolve…';
  return [
    step(
      'webhooks.endpoint.create',
      { ...writer, action: 'create', url: endpoint.url, events: endpoint.events, description: endpoint.description },
      { message: 'Webhook endpoint created successfully', endpoint, secret: 'whsec_…' },
    ),
    step(
      'webhooks.endpoint.list',
      { ...reader, action: 'list' },
      { message: 'Webhook endpoints retrieved successfully', endpoints: [endpoint], pagination: page },
    ),
    step(
      'webhooks.endpoint.update',
      { ...writer, action: 'update', endpoint_id: 1, events: narrowed.events },
      { message: 'Webhook endpoint updated successfully', endpoint: narrowed },
    ),
    step(
      'webhooks.delivery.list',
      { ...reader, action: 'deliveries', endpoint_id: 1 },
      { message: 'Webhook deliveries retrieved successfully', deliveries: [], pagination: { ...page, total_items: 0, total_pages: 0 } },
    ),
    step(
      'webhooks.endpoint.rotate_secret',
      { ...writer, action: 'rotate_secret', endpoint_id: 1 },
      {
        message: 'Webhook signing secret rotated successfully',
        endpoint: { ...narrowed, version: 3, previous_secret_expires_at: `${addDays(today, 1)}T09:00:00` },
        secret: 'whsec_…',
      },
    ),
    step(
      'webhooks.delivery.redeliver',
      { ...writer, action: 'redeliver', endpoint_id: 1, since: `${today}T00:00:00` },
      { message: '0 webhook deliveries queued again', redelivered: 0 },
    ),
    step('webhooks.endpoint.test', { ...writer, action: 'test', endpoint_id: 1 }, { message: 'Test webhook queued', delivery: ping }),
    step(
      'webhooks.delivery.attempts',
      { ...reader, action: 'attempts', endpoint_id: 1, delivery_id: 1 },
      {
        message: 'Webhook delivery attempts retrieved successfully',
        delivery: {
          ...ping,
          attempts: 1,
          last_attempt_at: at,
          last_duration_ms: 0,
          last_error: unresolved,
          next_attempt_at: `${today}T09:00:05`,
        },
        attempts: [{ attempt: 1, at, http_status: null, duration_ms: 0, error: unresolved, response_excerpt: null }],
        pagination: page,
      },
    ),
    step('webhooks.endpoint.delete', { ...writer, action: 'delete', endpoint_id: 1 }, { message: 'Webhook endpoint deleted successfully' }),
    // A supplier's e-invoice (the CEN's UBL example 6): its seller is no partner and its lines name
    // no mapped product, so it is held for review; the original is kept byte for byte.
    step(
      'invoicing.inbound.import',
      { ...writer, action: 'import', content_base64: RECEIVED_UBL, filename: 'TOSL110.xml' },
      {
        message: 'Held for review',
        inbound: received,
      },
    ),
    step(
      'invoicing.inbound.list',
      { ...writer, action: 'list', status: 'needs_review' },
      { message: 'Imports retrieved successfully', inbound: [received], pagination: { ...page, total_items: 1, total_pages: 1 } },
    ),
    step(
      'invoicing.inbound.get',
      { ...writer, action: 'get', id: 1, format: 'original' },
      {
        message: 'Import retrieved successfully',
        inbound: received,
        content_base64: `${RECEIVED_UBL.slice(0, 40)}…`,
        content_type: 'application/xml',
        sha256: received.sha256,
      },
    ),
    step(
      'invoicing.inbound.reject',
      { ...writer, action: 'reject', id: 1, reason: 'Not ordered by us' },
      { message: 'Import rejected', inbound: { ...received, status: 'rejected', rejection_reason: 'Not ordered by us' } },
    ),
    // The supplier sends it again, its bytes and a final newline (other bytes: a rejected import gives up its number) once it is a
    // vendor: the supplier now matches by its VAT id, and accept chooses a product per line, which
    // makes the bill and teaches the supplier's product mapping.
    step(
      'partners.partner.create',
      { ...writer, action: 'create', partnername: 'SellerCompany', partner_type: 'vendor', tax_number: 'DK123456789MVA' },
      { message: 'Partner created successfully', partner: sellerCompany },
    ),
    step(
      'invoicing.inbound.import',
      { ...writer, action: 'import', content_base64: base64Of(`${atob(RECEIVED_UBL)}\n`), filename: 'TOSL110.xml' },
      { message: 'Held for review', inbound: receivedAgain },
    ),
    step(
      'invoicing.inbound.accept',
      {
        ...writer,
        action: 'accept',
        id: 2,
        line_products: [
          { line: '1', product_id: 1 },
          { line: '2', product_id: 1 },
          { line: '3', product_id: 1 },
        ],
      },
      {
        message: 'Bill created',
        inbound: { ...receivedAgain, status: 'bill_created', review_reasons: [], invoice_id: RECEIVED_BILL_ID },
      },
    ),
    // From now on an unknown supplier is created as a vendor instead of holding its document for review.
    step(
      'invoicing.inbound.settings',
      { ...writer, action: 'settings', inbound_create_partners: true },
      { message: 'Inbound settings saved', settings: { inbound_create_partners: true } },
    ),
  ];
}

/** The bill accept makes of it: the story's next invoice. */
const RECEIVED_BILL_ID = 5;
