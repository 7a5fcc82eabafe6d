import { randomUUID } from 'node:crypto';
import { sales } from '@bo/contracts';
import { createLogger, NotAsDecided, storeAlone, type AmqpBus, type BaseConfig } from '@bo/runtime';
import * as testing from '@bo/testkit';
import { claimAttempt, completionAlone } from '../src/conversion/conversion';
import { freezeOf } from '../src/conversion/decide-claim';
import { recoverConversions } from '../src/conversion/conversion-recovery';
import { cancellationAlone, readQuotationWithToday } from '../src/quotation/quotation.repository';
import type { QuotationRow } from '../src/quotation/quotation.record';
import { salesService } from '../src/service';
import {
  contractCall,
  daysFromToday,
  fakeInvoicing,
  fakePartners,
  ok,
  partnerRecord,
  removeService,
  separateBus,
  waitFor,
  type Reply,
} from './support';

const line = { product_id: 7, product_name: 'Widget', quantity: 5, price: 50, discount: 10, tax_rate: 15, tax_included: false };
const taxIncluded = { product_id: '8', description: 'Service', quantity: '2', price: '115', tax_rate: '15', tax_included: true };
const RPC_TIMEOUT_MS = 2000;

describe('converting quotations to invoices', () => {
  let svc: testing.TestService;
  let catalog: testing.CatalogStub;
  let invoicing: Awaited<ReturnType<typeof fakeInvoicing>>;
  // The fake invoicing service has a connection of its own so that the last test can take it away.
  let invoicingBus: AmqpBus;
  let call: ReturnType<typeof contractCall>;
  beforeAll(async () => {
    // Sales waits 60% of RPC_TIMEOUT_MS for invoicing (1200 ms); the recovery task looks every 100 ms
    // for conversions frozen with no attempt for 3 × RPC_TIMEOUT_MS.
    svc = await testing.startTestService(salesService, { RPC_TIMEOUT_MS: String(RPC_TIMEOUT_MS), CONVERSION_RECOVERY_MS: '100' });
    catalog = await testing.startCatalogStub(svc);
    call = contractCall(svc);
    const partners = await fakePartners(svc);
    partners.add(partnerRecord(1, 1, { partnername: 'Acme Corp', currency: 'USD' }));
    invoicingBus = await separateBus(svc);
    invoicing = await fakeInvoicing(svc, invoicingBus);
  });
  afterAll(async () => {
    await catalog?.stop();
    await invoicingBus?.close();
    await svc?.stop();
  });
  afterEach(() => {
    invoicing.state.delayMs = 0;
    invoicing.state.refuse = undefined;
  });

  const createQuotation = async (fields: Record<string, unknown> = {}) =>
    ok(
      await call('sales.quotation.create', {
        action: 'create_quotation',
        partner: 1,
        quotation_type: 'quotation',
        quotation_date: `${daysFromToday(0)}T10:00:00`,
        valid_until: daysFromToday(10),
        line_items: [line, taxIncluded],
        ...fields,
      }),
    ).quotation;
  /** A convert command as the gateway sends it: every write carries an operation key. */
  const convert = (id: number, opts: { key?: string; invoicetype?: string } = {}): Promise<Reply> =>
    call(
      'sales.quotation.convert',
      { userid: 'u7', action: 'convert_to_invoice', quotation_id: id, invoicetype: opts.invoicetype ?? 'invoiceout' },
      1,
      {
        operationKey: opts.key ?? randomUUID(),
      },
    );
  const addLine = (id: number) =>
    call('sales.quotation.add_line', { action: 'add_line', quotation_id: id, ...line }, 1, { operationKey: randomUUID() });
  const cancel = (id: number) =>
    call('sales.quotation.cancel', { action: 'cancel_quotation', quotation_id: id }, 1, { operationKey: randomUUID() });
  const row = (id: number) => svc.db('quotations').where({ id }).first();
  const eventsOf = async (id: number) =>
    Number(
      (
        await svc
          .db('outbox')
          .where({ type: 'sales.quotation.converted' })
          .whereRaw(`envelope->'data'->>'quotation_id' = ?`, [String(id)])
          .count({ n: '*' })
      )[0]!.n,
    );
  const invoicesFor = (id: number) => [...invoicing.invoices.entries()].filter(([k]) => k === `1:quotation:${id}`).map(([, v]) => v);
  const state = async (id: number) => {
    // The attempt counter is bookkeeping: an attempt that made nothing still counts.
    const { conversion_attempts: _attempts, ...quotation } = await row(id);
    return { quotation, events: await eventsOf(id), invoices: invoicesFor(id).length };
  };
  /** Makes the database refuse to record this quotation's conversion, as if sales died after invoicing answered. */
  const refuseCompletion = async (id: number) => {
    await svc.db.raw(
      `create or replace function ??.refuse_completion() returns trigger language plpgsql as $$
      begin raise exception 'injected: the conversion cannot be recorded'; end $$`,
      [svc.schema],
    );
    await svc.db.raw(
      `create trigger refuse_completion_${id} before update on ??.quotations for each row when (old.id = ${Number(id)} and new.status = 'converted') execute function ??.refuse_completion()`,
      [svc.schema, svc.schema],
    );
    return () => svc.db.raw(`drop trigger refuse_completion_${id} on ??.quotations`, [svc.schema]);
  };
  /** The recovery pass as the service runs it, called directly. */
  const recoveryPass = () =>
    recoverConversions({
      db: svc.db,
      bus: svc.client,
      config: { RPC_TIMEOUT_MS } as BaseConfig,
      log: createLogger('sales-test', 'silent'),
    });

  it('makes one draft invoice with the lines and totals, marks the quotation converted and publishes the event', async () => {
    const seen = await svc.collect(['sales.quotation.converted']);
    const q = await createQuotation({ comments: 'Deliver Monday', quotation_reference: 'PO-9' });
    const reply = ok(await convert(q.id));
    expect(reply.invoice).toEqual({
      id: expect.any(Number),
      orgid: 1,
      invoicenumber: expect.stringMatching(/^INV-/),
      invoicetype: 'invoiceout',
      partner: '1',
      invoicestatus: 'draft',
      subtotal: 425,
      tax_amount: 63.75,
      invoicetotal: 488.75,
    });
    const sent = invoicing.requests.at(-1)!;
    expect(sent).toMatchObject({
      org_id: '1',
      userid: 'u7',
      invoicetype: 'invoiceout',
      partner: 1,
      invoicestatus: 'draft',
      comments: 'Deliver Monday',
      invoicereference: 'PO-9',
      subtotal: '425.00',
      tax_amount: '63.75',
      invoicetotal: '488.75',
      sourcetype: 'quotation',
      sourceid: String(q.id),
      sourcenumber: q.quotation_number,
      // The invoice bills in the currency the quotation was made in (its partner's).
      currency: 'USD',
    });
    expect(sent.line_items).toEqual([
      {
        product_id: '7',
        product_name: 'Widget',
        quantity: '5',
        price: '50',
        discount: '10',
        tax_rate: '15',
        tax_included: false,
        // No line amounts: invoicing computes them from these, under the organization's policy.
        tax_category: 'S',
        snapshot: { product_name: 'Widget', description: null, sku: null, uom: null },
      },
      {
        product_id: '8',
        product_name: 'Product 8',
        description: 'Service',
        quantity: '2',
        price: '115',
        discount: '0',
        tax_rate: '15',
        tax_included: true,
        tax_category: 'S',
        // The quotation's snapshot travels with the line, so the invoice keeps it whatever catalog says at conversion.
        snapshot: { product_name: 'Product 8', description: 'Service', sku: null, uom: null },
      },
    ]);
    expect(await row(q.id)).toMatchObject({
      status: 'converted',
      invoice_id: reply.invoice.id,
      invoicenumber: reply.invoice.invoicenumber,
      invoicetype: 'invoiceout',
      updated_by: 'u7',
    });
    await waitFor(() => seen.some((e) => e.data['quotation_id'] === q.id));
    expect(seen.find((e) => e.data['quotation_id'] === q.id)).toMatchObject({
      type: 'sales.quotation.converted',
      org_id: 1,
      data: {
        quotation_id: q.id,
        quotation_number: q.quotation_number,
        quotation_type: 'quotation',
        invoice_id: reply.invoice.id,
        invoicenumber: reply.invoice.invoicenumber,
        invoicetype: 'invoiceout',
        partner_id: 1,
        subtotal: 425,
        tax_amount: 63.75,
        quotation_total: 488.75,
        converted_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/),
      },
    });
    // The partners service reads it with the published contract: it must parse and lose nothing.
    const event = seen.find((e) => e.data['quotation_id'] === q.id)!;
    expect(sales.quotationConverted.data.parse(event.data)).toEqual(event.data);
    const listed = ok(await call('sales.quotation.list', { search_key: q.quotation_number })).quotations[0];
    expect(listed).toMatchObject({
      quotation_status: 'converted',
      invoice_id: reply.invoice.id,
      invoicenumber: reply.invoice.invoicenumber,
    });

    // A second convert (another command) is refused and asks invoicing nothing.
    const before = await state(q.id);
    const calls = invoicing.requests.length;
    const again = await convert(q.id);
    expect(again).toMatchObject({ ok: false, status: 400, code: 'invalid_state' });
    expect(!again.ok && again.message).toContain(`already converted to invoice ${reply.invoice.invoicenumber}`);
    expect(invoicing.requests.length).toBe(calls);
    expect(await state(q.id)).toEqual(before);
    // A converted quotation is closed for lines, edits and cancellation.
    for (const r of [
      await addLine(q.id),
      await call('sales.quotation.edit', { action: 'edit_quotation', quotation_id: q.id, comments: 'late' }),
      await cancel(q.id),
    ]) {
      expect(r).toMatchObject({ ok: false, code: 'invalid_state' });
    }
    expect(await state(q.id)).toEqual(before);
  });

  it('answers a redelivered convert command with the same reply and no second effect', async () => {
    const q = await createQuotation();
    const { first, again, afterFirst, afterAgain } = await testing.deliverTwice(svc, 'sales.quotation.convert', {
      action: 'convert_to_invoice',
      quotation_id: q.id,
      invoicetype: 'invoiceout',
    });
    expect(first).toMatchObject({ ok: true, status: 200 });
    expect(again).toEqual(first);
    expect(afterAgain).toEqual(afterFirst);
    expect(await eventsOf(q.id)).toBe(1);

    // The redelivery racing the original (its channel died while the handler still ran).
    const raced = await createQuotation();
    const together = await testing.deliverTwins(svc, 'sales.quotation.convert', {
      action: 'convert_to_invoice',
      quotation_id: raced.id,
      invoicetype: 'invoiceout',
    });
    expect(together.first).toMatchObject({ ok: true, status: 200 });
    expect(together.again).toEqual(together.first);
    expect(await eventsOf(raced.id)).toBe(1);
    expect(invoicesFor(raced.id)).toHaveLength(1);
  });

  it('makes one invoice when one conversion is retried in parallel: a retry while it runs is answered 409, one after it its reply', async () => {
    const q = await createQuotation();
    const key = randomUUID();
    const replies = await Promise.all(Array.from({ length: 5 }, () => convert(q.id, { key })));
    const done = replies.filter((r) => r.ok);
    expect(done.length).toBeGreaterThanOrEqual(1);
    // A retry that arrived while the first was between its steps did nothing but answer 409.
    for (const r of replies.filter((r) => !r.ok)) expect(r).toMatchObject({ status: 409, code: 'idempotency_conflict' });
    const bodies = done.map(ok);
    for (const body of bodies) expect(body).toEqual(bodies[0]);
    expect(ok(await convert(q.id, { key }))).toEqual(bodies[0]);
    expect(invoicesFor(q.id)).toHaveLength(1);
    expect(bodies[0]!.invoice.id).toBe(invoicesFor(q.id)[0]!.id);
    expect(await eventsOf(q.id)).toBe(1);
  });

  it('claims on an unlocked read only while the quotation is the row read, and completes alone only while its attempt is the last', async () => {
    const q = await createQuotation();
    const config = { RPC_TIMEOUT_MS } as BaseConfig;
    const driver = { actor: 'u7' };
    const clock = { nowMs: Date.now(), rpcTimeoutMs: RPC_TIMEOUT_MS };
    const freeze = (quotation: QuotationRow) => freezeOf(quotation, 'invoiceout', driver, clock);
    // Read, then a line added meanwhile: the claim changes nothing, and the quotation is not frozen.
    const stale = await readQuotationWithToday(svc.db, 1, q.id);
    ok(await addLine(q.id));
    expect(await claimAttempt(svc.db, stale.quotation, freeze(stale.quotation), driver, config, stale.read)).toBeUndefined();
    expect((await row(q.id)).conversion_attempted_at).toBeNull();

    // Read afresh: claimed, with every line as it now stands.
    const fresh = await readQuotationWithToday(svc.db, 1, q.id);
    const first = (await claimAttempt(svc.db, fresh.quotation, freeze(fresh.quotation), driver, config, fresh.read))!;
    expect(first.request.line_items).toHaveLength(3);
    // Another attempt begins: the first's completion as one statement writes nothing.
    const second = (await claimAttempt(svc.db, first.quotation, freeze(first.quotation), driver, config))!;
    const invoice: sales.SourceInvoice = {
      id: 9001,
      orgid: 1,
      invoicenumber: 'INV-09001',
      invoicetype: 'invoiceout',
      partner: '1',
      invoicestatus: 'draft',
      subtotal: 1,
      tax_amount: 0,
      invoicetotal: 1,
    };
    const answer = { ok: true as const, status: 200, body: {} };
    await expect(storeAlone(svc.db, completionAlone(first, invoice), undefined, answer)).rejects.toBeInstanceOf(NotAsDecided);
    expect((await row(q.id)).status).not.toBe('converted');
    await storeAlone(svc.db, completionAlone(second, invoice), undefined, answer);
    expect(await row(q.id)).toMatchObject({ status: 'converted', invoice_id: 9001, invoicenumber: 'INV-09001' });
  });

  it('cancels on an unlocked read only while the quotation is the row read: a freeze meanwhile leaves the cancel to the lock, which refuses it', async () => {
    const q = await createQuotation();
    const config = { RPC_TIMEOUT_MS } as BaseConfig;
    const driver = { actor: 'u7' };
    const answer = { ok: true as const, status: 200, body: {} };
    const cancelAlone = (id: number, read: string) => ({
      ...cancellationAlone(id, 'u7', read),
      events: [],
      reply: { message: 'cancelled' },
    });
    // Read for the cancel, then a conversion freezes it: the cancel's statement writes nothing.
    const stale = await readQuotationWithToday(svc.db, 1, q.id);
    const fresh = await readQuotationWithToday(svc.db, 1, q.id);
    const clock = { nowMs: Date.now(), rpcTimeoutMs: RPC_TIMEOUT_MS };
    expect(
      await claimAttempt(svc.db, fresh.quotation, freezeOf(fresh.quotation, 'invoiceout', driver, clock), driver, config, fresh.read),
    ).toBeDefined();
    await expect(storeAlone(svc.db, cancelAlone(q.id, stale.read), undefined, answer)).rejects.toBeInstanceOf(NotAsDecided);
    expect((await row(q.id)).status).not.toBe('cancelled');
    // Through the service, the cancel finds it frozen and is refused until the conversion ends.
    expect(await cancel(q.id)).toMatchObject({ ok: false, code: 'invalid_state' });
    expect((await row(q.id)).status).not.toBe('cancelled');

    // Read and stored with nothing between: cancelled by the one statement.
    const other = await createQuotation();
    const read = await readQuotationWithToday(svc.db, 1, other.id);
    await storeAlone(svc.db, cancelAlone(other.id, read.read), undefined, answer);
    expect(await row(other.id)).toMatchObject({ status: 'cancelled', updated_by: 'u7' });
  });

  it('lets one of several different conversions in parallel win; the rest are refused', async () => {
    const q = await createQuotation();
    const replies = await Promise.all(Array.from({ length: 4 }, () => convert(q.id)));
    expect(replies.filter((r) => r.ok)).toHaveLength(1);
    const refused = replies.filter((r) => !r.ok);
    expect(refused).toHaveLength(3);
    for (const r of refused)
      expect(r).toMatchObject({ status: 400, code: 'invalid_state', message: expect.stringMatching(/already (being )?converted/) });
    expect(invoicesFor(q.id)).toHaveLength(1);
    expect(await eventsOf(q.id)).toBe(1);
  });

  it('lets either a cancel or a conversion racing it win, never both, and leaves no invoice for a cancelled quotation', async () => {
    for (let round = 0; round < 5; round++) {
      const q = await createQuotation();
      const [converted, cancelled] = await Promise.all([convert(q.id), cancel(q.id)]);
      expect([converted.ok, cancelled.ok].filter(Boolean)).toHaveLength(1);
      const { status } = await row(q.id);
      if (converted.ok) {
        expect({ status, invoices: invoicesFor(q.id).length, refusal: !cancelled.ok && cancelled.code }).toEqual({
          status: 'converted',
          invoices: 1,
          refusal: 'invalid_state',
        });
      } else {
        expect({ status, invoices: invoicesFor(q.id).length, refusal: converted.code }).toEqual({
          status: 'cancelled',
          invoices: 0,
          refusal: 'invalid_state',
        });
      }
    }
  });

  it('answers 504 outcome_unknown when invoicing is late, takes no change while pending, and a retry finishes it with the same invoice', async () => {
    const q = await createQuotation();
    const key = randomUUID();
    invoicing.state.delayMs = 1800;
    const first = await convert(q.id, { key });
    expect(first).toMatchObject({ ok: false, status: 504, code: 'outcome_unknown', message: expect.stringContaining('pending') });
    expect(!first.ok && first.message).toContain('Retrying is safe');
    invoicing.state.delayMs = 0;
    // Invoicing did its work; only the answer was late. The quotation is frozen as it was sent.
    expect(invoicesFor(q.id)).toHaveLength(1);
    const made = invoicesFor(q.id)[0]!;
    expect(await row(q.id)).toMatchObject({
      status: 'draft',
      invoice_id: null,
      convert_key: key,
      convert_invoicetype: 'invoiceout',
      conversion_attempted_at: expect.any(Date),
    });
    const frozen = await state(q.id);
    for (const r of [
      await addLine(q.id),
      await cancel(q.id),
      await call('sales.quotation.edit', { action: 'edit_quotation', quotation_id: q.id, comments: 'changed' }, 1, {
        operationKey: randomUUID(),
      }),
    ]) {
      // Refused only while the conversion runs: not the settled answer of those commands' keys.
      expect(r).toMatchObject({
        ok: false,
        status: 400,
        code: 'invalid_state',
        transient: true,
        message: expect.stringContaining('conversion to an invoice is unfinished'),
      });
    }
    // Another invoice type cannot finish what was started as invoiceout.
    expect(await convert(q.id, { invoicetype: 'creditout' })).toMatchObject({
      ok: false,
      status: 400,
      code: 'invalid_state',
      message: expect.stringContaining('type invoiceout'),
    });
    expect(await state(q.id)).toEqual(frozen);
    // The recovery task leaves a conversion this fresh to the client's retry.
    expect(await recoveryPass()).toBe(0);
    expect(await state(q.id)).toEqual(frozen);

    // A retry with another key (a client without Idempotency-Key) resumes it: the same invoice.
    const retry = ok(await convert(q.id));
    expect(retry.invoice.id).toBe(made.id);
    expect(invoicesFor(q.id)).toHaveLength(1);
    expect(await row(q.id)).toMatchObject({ status: 'converted', invoice_id: made.id, subtotal: '425.00' });
    expect(await eventsOf(q.id)).toBe(1);
    // The command that started it gets the same answer; any other command is refused.
    expect(ok(await convert(q.id, { key }))).toEqual(retry);
    expect(await convert(q.id)).toMatchObject({
      ok: false,
      status: 400,
      code: 'invalid_state',
      message: expect.stringContaining(`already converted to invoice ${made.invoicenumber}`),
    });
    expect(await eventsOf(q.id)).toBe(1);
  });

  it('keeps a conversion pending when invoicing refuses a retry while the earlier attempt may still be making the invoice', async () => {
    const q = await createQuotation();
    invoicing.state.delayMs = 1800;
    expect(await convert(q.id)).toMatchObject({ ok: false, status: 504, code: 'outcome_unknown' });
    invoicing.state.delayMs = 0;
    invoicing.state.refuse = { code: 'validation_failed', message: 'partner is not a customer' };
    try {
      // The first attempt's invoice may exist (here it does): the refusal must not reopen the quotation beside it.
      expect(await convert(q.id)).toMatchObject({
        ok: false,
        status: 503,
        code: 'outcome_unknown',
        message: expect.stringContaining('partner is not a customer'),
      });
      expect(await row(q.id)).toMatchObject({ status: 'draft', conversion_attempted_at: expect.any(Date) });
      expect(await addLine(q.id)).toMatchObject({ ok: false, code: 'invalid_state' });
    } finally {
      invoicing.state.refuse = undefined;
    }
    const finished = ok(await convert(q.id));
    expect(finished.invoice.id).toBe(invoicesFor(q.id)[0]!.id);
    expect(invoicesFor(q.id)).toHaveLength(1);
  });

  it('passes on an invoicing refusal and unfreezes the quotation: nothing was made, lines are taken again', async () => {
    const q = await createQuotation();
    invoicing.state.refuse = { code: 'validation_failed', message: 'partner is not a customer' };
    expect(await convert(q.id)).toMatchObject({
      ok: false,
      status: 400,
      code: 'validation_failed',
      message: expect.stringContaining('partner is not a customer'),
    });
    expect(await row(q.id)).toMatchObject({
      status: 'draft',
      conversion_attempted_at: null,
      convert_key: null,
      convert_invoicetype: null,
      conversion_lease_until: null,
    });
    expect(invoicesFor(q.id)).toHaveLength(0);
    expect(await eventsOf(q.id)).toBe(0);
    ok(await addLine(q.id));
    invoicing.state.refuse = undefined;
    const converted = ok(await convert(q.id));
    expect(converted.invoice).toMatchObject({ invoicetotal: 747.5 });
    expect(invoicing.requests.at(-1)!.line_items).toHaveLength(3);
  });

  it('completes a conversion whose completion failed after invoicing answered, with no client retry; the starting command then gets its invoice', async () => {
    const q = await createQuotation();
    const key = randomUUID();
    const allow = await refuseCompletion(q.id);
    const failed = await convert(q.id, { key });
    expect(failed).toMatchObject({ ok: false, status: 503, code: 'outcome_unknown', message: expect.stringContaining('Retrying is safe') });
    const made = invoicesFor(q.id);
    expect(made).toHaveLength(1);
    expect(await row(q.id)).toMatchObject({ status: 'draft', invoice_id: null, convert_key: key });
    expect(await addLine(q.id)).toMatchObject({ ok: false, code: 'invalid_state' });
    expect(await cancel(q.id)).toMatchObject({ ok: false, code: 'invalid_state' });
    await allow();

    // As if a few RPC timeouts had passed with nobody retrying: the recovery task takes it over.
    await svc
      .db('quotations')
      .where({ id: q.id })
      .update({
        conversion_attempted_at: svc.db.raw(`now() - interval '1 hour'`),
        conversion_lease_until: svc.db.raw(`now() - interval '1 hour'`),
      });
    await waitFor(async () => (await row(q.id)).status === 'converted');
    expect(await row(q.id)).toMatchObject({
      status: 'converted',
      invoice_id: made[0]!.id,
      invoicenumber: made[0]!.invoicenumber,
      updated_by: 'u7',
    });
    expect(invoicesFor(q.id)).toHaveLength(1);
    expect(await eventsOf(q.id)).toBe(1);

    // The command that started it, retried with its key, gets that invoice; another command is refused.
    const retried = ok(await convert(q.id, { key }));
    expect(retried).toEqual({
      message: expect.stringContaining(made[0]!.invoicenumber),
      invoice: expect.objectContaining({ id: made[0]!.id, invoicenumber: made[0]!.invoicenumber }),
    });
    expect(ok(await convert(q.id, { key }))).toEqual(retried);
    expect(await convert(q.id)).toMatchObject({ ok: false, status: 400, code: 'invalid_state' });
    expect(await eventsOf(q.id)).toBe(1);
  });

  it('converts each abandoned conversion once when several recovery passes (instances) run at once', async () => {
    const quotations = await Promise.all([createQuotation(), createQuotation(), createQuotation()]);
    for (const q of quotations) {
      const allow = await refuseCompletion(q.id);
      expect(await convert(q.id)).toMatchObject({ ok: false, code: 'outcome_unknown' });
      await allow();
    }
    const ids = quotations.map((q) => q.id);
    await svc
      .db('quotations')
      .whereIn('id', ids)
      .update({
        conversion_attempted_at: svc.db.raw(`now() - interval '1 hour'`),
        conversion_lease_until: svc.db.raw(`now() - interval '1 hour'`),
      });
    // Three passes here and the service's own task all compete for the same three quotations.
    const completed = (await Promise.all([recoveryPass(), recoveryPass(), recoveryPass()])).reduce((a, b) => a + b, 0);
    expect(completed).toBeLessThanOrEqual(3);
    await waitFor(async () => (await svc.db('quotations').whereIn('id', ids).where({ status: 'converted' })).length === 3);
    for (const id of ids) {
      expect(invoicesFor(id)).toHaveLength(1);
      expect(await eventsOf(id)).toBe(1);
      expect(await row(id)).toMatchObject({ invoice_id: invoicesFor(id)[0]!.id });
    }
  });

  it('completes a pending conversion even when the quotation expired meanwhile', async () => {
    const q = await createQuotation();
    const allow = await refuseCompletion(q.id);
    expect(await convert(q.id)).toMatchObject({ ok: false, code: 'outcome_unknown' });
    await allow();
    await svc
      .db('quotations')
      .where({ id: q.id })
      .update({ valid_until: daysFromToday(-1) });
    const finished = ok(await convert(q.id));
    expect(finished.invoice.id).toBe(invoicesFor(q.id)[0]!.id);
    expect(await row(q.id)).toMatchObject({ status: 'converted' });
  });

  it('refuses cancelled, expired and empty quotations, asking invoicing nothing', async () => {
    const cancelled = await createQuotation();
    ok(await cancel(cancelled.id));
    const expired = await createQuotation({ quotation_date: '2025-01-01T00:00:00', valid_until: '2025-01-15' });
    const empty = await createQuotation({ line_items: [] });
    const calls = invoicing.requests.length;
    const before = await Promise.all([cancelled, expired, empty].map((q) => state(q.id)));
    expect(await convert(cancelled.id)).toMatchObject({
      ok: false,
      status: 400,
      code: 'invalid_state',
      message: expect.stringContaining('in status cancelled'),
    });
    expect(await convert(expired.id)).toMatchObject({
      ok: false,
      status: 400,
      code: 'invalid_state',
      message: expect.stringContaining('in status expired'),
    });
    expect(await convert(empty.id)).toMatchObject({
      ok: false,
      status: 400,
      code: 'invalid_state',
      message: expect.stringContaining('no lines'),
    });
    expect(invoicing.requests.length).toBe(calls);
    expect(await Promise.all([cancelled, expired, empty].map((q) => state(q.id)))).toEqual(before);
    expect(await convert(empty.id, { invoicetype: 'proforma' })).toMatchObject({
      ok: false,
      code: 'validation_failed',
      errors: [{ field: 'invoicetype' }],
    });
  });

  // Runs last: it takes the invoicing service away.
  it('answers 503 when no invoicing service is there, leaving the quotation open', async () => {
    const q = await createQuotation();
    await removeService(svc, invoicingBus, 'invoicing');
    const before = await state(q.id);
    const r = await convert(q.id);
    expect(r).toMatchObject({
      ok: false,
      status: 503,
      code: 'service_unavailable',
      message: expect.stringContaining('invoicing service is unavailable'),
    });
    expect(await state(q.id)).toEqual(before);
    expect(before.quotation).toMatchObject({ status: 'draft', invoice_id: null, conversion_attempted_at: null });
    // Lines can still be added: nothing can have been made for it.
    ok(await addLine(q.id));
  });
});
