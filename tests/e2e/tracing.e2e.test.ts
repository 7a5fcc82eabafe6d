import { randomBytes } from 'node:crypto';
import { invoicing, sales, type EventEnvelope } from '@bo/contracts';
import { AmqpBus, createLogger, SpanKind, type TraceContext } from '@bo/runtime';
import * as testing from '@bo/testkit';
import { eventually, startTestSystem, type TestSystem } from '../support/system';

/**
 * One client story (create a partner, quote, convert, validate the invoice; the partners ledger
 * applying the events) is one trace: the client's traceparent is continued by the gateway, every
 * RPC and every event over real RabbitMQ, each service in the system running with its own bus
 * connection, so the context can only cross in the message headers.
 */
describe('traces across the message hop', () => {
  let spans: testing.SpanCollector;
  let sys: TestSystem;
  let listener: AmqpBus;
  const heard: Array<{ event: EventEnvelope; trace?: TraceContext }> = [];
  const traceId = randomBytes(16).toString('hex');
  const traceparent = `00-${traceId}-${randomBytes(8).toString('hex')}-01`;

  beforeAll(async () => {
    spans = testing.collectSpans();
    sys = await startTestSystem({ env: { WEBHOOKS_ALLOW_HTTP: '1', WEBHOOKS_ALLOW_PRIVATE: '1' } });
    // Webhooks takes the events an enabled endpoint subscribes to (docs/webhooks.md): this one's.
    await sys.client.webhooks.endpoint.create({ org_id: '1', userid: 'u1', url: 'http://127.0.0.1:9/hook', events: ['invoicing.*'] });
    // A bare consumer beside the services: what the events carry in their RabbitMQ headers.
    listener = new AmqpBus({
      url: await testing.testAmqpUrl(),
      prefix: sys.system.config.BUS_PREFIX,
      log: createLogger('listener', 'silent'),
    });
    await listener.connect();
    await listener.subscribe({
      name: 'test.trace-listener',
      events: ['#'],
      handler: async (event, delivery) => void heard.push({ event, trace: delivery.trace }),
    });
  });
  afterAll(async () => {
    await listener?.close();
    await listener?.destroyTopology({ exchanges: false });
    await sys?.stop();
    await spans?.stop();
  });

  const post = async (path: string, body: Record<string, unknown>) => {
    const res = await sys.post(path, body, { headers: { traceparent } });
    expect(res.statusCode).toBe(200);
    return res.body;
  };
  const inTrace = () => spans.spans().filter((s) => s.spanContext().traceId === traceId);
  const serviceOf = (s: { resource: { attributes: Record<string, unknown> } }) => String(s.resource.attributes['service.name']);
  const one = (service: string, kind: SpanKind, name: string) => {
    const found = inTrace().filter((s) => serviceOf(s) === service && s.kind === kind && s.name === name);
    if (found.length === 0)
      throw new Error(
        `no ${service} span "${name}" in the trace; it has: ${inTrace()
          .map((s) => `${serviceOf(s)}:${s.name}`)
          .join(', ')}`,
      );
    return found[0]!;
  };

  it('makes one trace of a convert-and-validate story, across the gateway and three services', async () => {
    const product = (
      await post('/inventory/editproduct/', {
        org_id: '1',
        userid: 'u1',
        name: 'Consulting',
        price: 50,
        taxable: true,
        tax_rate: 15,
        type: 'service',
        uom: 'h',
      })
    ).product;
    const partner = (
      await post('/crm/editpatner', {
        org_id: '1',
        userid: 'u1',
        action: 'create',
        partnername: 'Traced Ltd',
        partner_type: 'customer',
        currency: 'USD',
      })
    ).partner;
    const quotation = (
      await post('/sales/addline', {
        org_id: '1',
        userid: 'u1',
        action: 'create_quotation',
        partner: String(partner.id),
        quotation_type: 'quotation',
        quotation_status: 'draft',
        quotation_date: `${new Date().toISOString().slice(0, 10)}T10:00:00`,
        valid_until: new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10),
        line_items: [{ product_id: product.id, product_name: 'Consulting', quantity: 2, price: 50, tax_rate: 15, tax_included: false }],
      })
    ).quotation;
    const invoice = (
      await post('/sales/addline', {
        org_id: '1',
        userid: 'u1',
        action: 'convert_to_invoice',
        quotation_id: quotation.id,
        invoicetype: 'invoiceout',
      })
    ).invoice;
    await post('/invoicing/invoice/new', { org_id: '1', userid: 'u1', validate_invoice: true, id: invoice.id });
    // The partners ledger applied both events: the balance moved by the invoice's total.
    await eventually(async () =>
      expect((await post('/crm/partners', { org_id: '1', partner_id: partner.id })).partner).toMatchObject({ balance: 115, committed: 0 }),
    );

    // Consumer spans end after the ledger's commit, which the balance read may have overtaken.
    const converted = await eventually(async () => one('partners', SpanKind.CONSUMER, `consume ${sales.quotationConverted.type}`));
    const validated = await eventually(async () => one('partners', SpanKind.CONSUMER, `consume ${invoicing.invoiceValidated.type}`));

    // The gateway continued the client's trace; its RPC span is the parent of the service's handler span.
    const httpConvert = inTrace().find(
      (s) =>
        serviceOf(s) === 'gateway' &&
        s.kind === SpanKind.SERVER &&
        s.attributes['url.path'] === '/sales/addline' &&
        inTrace().some((c) => c.name === `call ${sales.convertQuotation.name}` && c.parentSpanContext?.spanId === s.spanContext().spanId),
    );
    expect(httpConvert).toBeDefined();
    const callConvert = one('gateway', SpanKind.CLIENT, `call ${sales.convertQuotation.name}`);
    const handleConvert = one('sales', SpanKind.SERVER, sales.convertQuotation.name);
    expect(handleConvert.parentSpanContext?.spanId).toBe(callConvert.spanContext().spanId);

    // Sales asked invoicing for the invoice: another hop in the same trace.
    const callInvoicing = one('sales', SpanKind.CLIENT, `call ${invoicing.createInvoiceFromSource.name}`);
    const handleInvoicing = one('invoicing', SpanKind.SERVER, invoicing.createInvoiceFromSource.name);
    expect(handleInvoicing.parentSpanContext?.spanId).toBe(callInvoicing.spanContext().spanId);

    // Its SQL: statements of the conversion are spans under the sales handler's trace; the quotation's
    // update and its event's outbox row ride in the statement that commits, with the recorded reply.
    const salesSql = inTrace()
      .filter((s) => serviceOf(s) === 'sales' && s.kind === SpanKind.CLIENT && typeof s.attributes['db.query.text'] === 'string')
      .map((s) => String(s.attributes['db.query.text']));
    expect([salesSql.some((q) => /update quotations/i.test(q)), salesSql.some((q) => /insert into outbox/i.test(q))]).toEqual([true, true]);

    // The relay published the event in the trace stored with its outbox row, and the consumer continued it.
    const publishConverted = one('sales', SpanKind.PRODUCER, `publish ${sales.quotationConverted.type}`);
    const salesSpanIds = new Set(
      inTrace()
        .filter((s) => serviceOf(s) === 'sales')
        .map((s) => s.spanContext().spanId),
    );
    expect(salesSpanIds.has(publishConverted.parentSpanContext?.spanId ?? '')).toBe(true);
    expect(converted.parentSpanContext?.spanId).toBe(publishConverted.spanContext().spanId);
    const publishValidated = one('invoicing', SpanKind.PRODUCER, `publish ${invoicing.invoiceValidated.type}`);
    expect(validated.parentSpanContext?.spanId).toBe(publishValidated.spanContext().spanId);

    // The context crossed RabbitMQ as message headers.
    const carried = heard.find(
      (h) => h.event.type === invoicing.invoiceValidated.type && (h.event.data as { invoice_id?: number }).invoice_id === invoice.id,
    );
    expect(carried?.trace?.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));

    // GET routes run in their span too: /health's pings are its children.
    expect((await fetch(`${sys.url}/health`, { headers: { traceparent } })).status).toBe(200);
    const health = await eventually(async () => one('gateway', SpanKind.SERVER, 'GET /health'));
    const ping = one('gateway', SpanKind.CLIENT, 'call partners.ping');
    expect(ping.parentSpanContext?.spanId).toBe(health.spanContext().spanId);

    // Every service's spans, one trace id: webhooks consumes the invoicing events its endpoint subscribes to.
    const consumed = await eventually(async () => one('webhooks', SpanKind.CONSUMER, `consume ${invoicing.invoiceValidated.type}`));
    expect(new Set(inTrace().map(serviceOf))).toEqual(new Set(['gateway', 'catalog', 'partners', 'sales', 'invoicing', 'webhooks']));
    // Its delivery to the endpoint continues the trace too: an attempt (refused at port 9) is a client span under the consumer's.
    const attempt = await eventually(async () => one('webhooks', SpanKind.CLIENT, `webhook ${invoicing.invoiceValidated.type}`));
    expect(attempt.parentSpanContext?.spanId).toBe(consumed.spanContext().spanId);
    expect(attempt.attributes).toMatchObject({ 'webhook.attempt': 1, 'webhook.outcome': 'error', 'webhook.id': carried?.event.id });
  });
});
