import * as testing from '@bo/testkit';
import { salesService } from '../src/service';
import { contractCall, daysFromToday, fakeInvoicing, fakePartners, ok, partnerRecord, waitFor } from './support';

const TODAY = daysFromToday(0);
const LATER = daysFromToday(30);
const specLine = {
  product_id: 7,
  product_name: 'Widget',
  description: 'Blue widget',
  quantity: 5,
  price: 50,
  discount: 10,
  tax_rate: 15,
  tax_included: false,
};

describe('sales quotations over PostgreSQL and RabbitMQ', () => {
  let svc: testing.TestService;
  let catalog: testing.CatalogStub;
  let partners: Awaited<ReturnType<typeof fakePartners>>;
  let call: ReturnType<typeof contractCall>;
  beforeAll(async () => {
    svc = await testing.startTestService(salesService);
    catalog = await testing.startCatalogStub(svc);
    call = contractCall(svc);
    partners = await fakePartners(svc);
    await fakeInvoicing(svc);
    partners.add(partnerRecord(1, 1, { partnername: 'Acme Corp', display_name: 'Acme', currency: 'USD' }));
    partners.add(partnerRecord(1, 2, { partnername: 'Globex 100%_off', display_name: 'Globex' }));
    partners.add(partnerRecord(2, 9, { partnername: 'Other Org Ltd' }));
    partners.add(partnerRecord(3, 1, { partnername: 'Busy Co' }));
  });
  afterAll(async () => {
    await catalog?.stop();
    await svc?.stop();
  });

  const create = (fields: Record<string, unknown> = {}, org = 1) =>
    call(
      'sales.quotation.create',
      {
        action: 'create_quotation',
        partner: '1',
        quotation_type: 'quotation',
        quotation_date: `${TODAY}T09:30:00`,
        valid_until: LATER,
        ...fields,
      },
      org,
    );
  const createOk = async (fields: Record<string, unknown> = {}, org = 1) => ok(await create(fields, org)).quotation;
  const snapshot = async () => ({
    quotations: await svc.db('quotations').orderBy('id'),
    lines: await svc.db('quotation_lines').orderBy('id'),
    outbox: await svc.db('outbox').count({ n: '*' }),
  });

  it("creates the spec's worked example with server-side arithmetic and a QUO- number", async () => {
    const q = await createOk({
      userid: 'u1',
      comments: 'Thanks',
      quotation_reference: 'PO-77',
      line_items: [{ ...specLine, subtotal: 1, tax_amount: 1, total: 2 }],
    });
    expect(q).toMatchObject({
      orgid: 1,
      partner: '1',
      quotation_number: 'QUO-00001',
      quotation_type: 'quotation',
      quotation_status: 'draft',
      quotation_date: `${TODAY}T09:30:00`,
      valid_until: LATER,
      comments: 'Thanks',
      quotation_reference: 'PO-77',
      subtotal: 225,
      tax_amount: 33.75,
      discount_total: 25,
      quotation_total: 258.75,
      invoice_id: null,
      invoicenumber: null,
    });
    expect(q.line_items).toEqual([
      {
        id: expect.any(Number),
        quotation_id: q.id,
        product_id: '7',
        variant_id: null,
        location_id: null,
        product_name: 'Widget',
        sku: null,
        uom: null,
        description: 'Blue widget',
        quantity: 5,
        price: 50,
        discount: 10,
        tax_rate: 15,
        tax_category: 'S',
        tax_exemption_reason: null,
        tax_exemption_code: null,
        reverse_charge_rate: null,
        tax_included: false,
        subtotal: 225,
        tax_amount: 33.75,
        total: 258.75,
      },
    ]);
    const row = await svc.db('quotations').where({ id: q.id }).first();
    expect(row).toMatchObject({ subtotal: '225.00', tax_amount: '33.75', total: '258.75', status: 'draft', created_by: 'u1' });
  });

  it('takes the tax out of tax-included prices, rounding half-up per line', async () => {
    const q = await createOk({
      line_items: [
        { product_id: '1', quantity: 2, price: 115, tax_rate: 15, tax_included: true },
        { product_id: '2', quantity: 1, price: '10', tax_rate: '7', tax_included: true },
        { product_id: '3', quantity: 3, price: '0.335', tax_rate: 10, tax_included: false },
      ],
    });
    expect(q.line_items.map((l: any) => [l.subtotal, l.tax_amount, l.total])).toEqual([
      [200, 30, 230],
      [9.35, 0.65, 10],
      [1.01, 0.1, 1.11],
    ]);
    expect(q).toMatchObject({ subtotal: 210.36, tax_amount: 30.75, quotation_total: 241.11, discount_total: 0 });
  });

  it('numbers each type in its own series per organization, and keeps a supplied number', async () => {
    expect((await createOk({ quotation_type: 'proforma' })).quotation_number).toBe('PRO-00001');
    expect((await createOk({ quotation_type: 'estimate' })).quotation_number).toBe('EST-00001');
    expect((await createOk({ partner: 9 }, 2)).quotation_number).toBe('QUO-00001');
    expect((await createOk({ quotation_number: '  QUO-00004 ' })).quotation_number).toBe('QUO-00004');
    // QUO-00003 is next; QUO-00004 was taken by hand, so the series skips it.
    expect((await createOk()).quotation_number).toBe('QUO-00003');
    expect((await createOk()).quotation_number).toBe('QUO-00005');
  });

  it('refuses a duplicate number and changes nothing', async () => {
    const before = await snapshot();
    const r = await create({ quotation_number: 'QUO-00004', line_items: [specLine] });
    expect(r).toMatchObject({ ok: false, status: 400, code: 'duplicate', errors: [{ field: 'quotation_number' }] });
    expect(await snapshot()).toEqual(before);
  });

  it('gives 20 concurrent creates 20 gapless numbers', async () => {
    const replies = await Promise.all(Array.from({ length: 20 }, () => create({ line_items: [specLine] }, 3)));
    const numbers = replies.map((r) => ok(r).quotation.quotation_number).sort();
    expect(numbers).toEqual(Array.from({ length: 20 }, (_, i) => `QUO-${String(i + 1).padStart(5, '0')}`));
    // Numbered last (numberDocument): what is stored is what was answered, no stand-in left.
    const stored = (await svc
      .db('quotations')
      .whereIn(
        'id',
        replies.map((r) => ok(r).quotation.id),
      )
      .pluck('quotation_number')) as string[];
    expect(stored.sort()).toEqual(numbers);
  });

  it('refuses unknown, other-organization and deleted partners, and valid_until before the date, changing nothing', async () => {
    const before = await snapshot();
    expect(await create({ partner: 999 })).toMatchObject({
      ok: false,
      status: 400,
      code: 'not_found',
      message: 'Partner 999 not found',
      errors: [{ field: 'partner' }],
    });
    expect(await create({ partner: 9 })).toMatchObject({ ok: false, code: 'not_found' });
    expect(await create({ valid_until: daysFromToday(-1) })).toMatchObject({
      ok: false,
      code: 'validation_failed',
      errors: [{ field: 'valid_until' }],
    });
    expect(await create({ quotation_type: 'order' })).toMatchObject({
      ok: false,
      code: 'validation_failed',
      errors: [{ field: 'quotation_type' }],
    });
    expect(await create({ quotation_status: 'accepted' })).toMatchObject({
      ok: false,
      code: 'validation_failed',
      errors: [{ field: 'quotation_status' }],
    });
    expect(await create({ line_items: [{ ...specLine, quantity: 0 }] })).toMatchObject({
      ok: false,
      errors: [{ field: 'line_items.0.quantity' }],
    });
    expect(await create({ line_items: [{ ...specLine, discount: 101 }] })).toMatchObject({
      ok: false,
      errors: [{ field: 'line_items.0.discount' }],
    });
    expect(await create({ line_items: [{ ...specLine, quantity: '100000000', price: '100000' }] })).toMatchObject({
      ok: false,
      errors: [{ field: 'line_items.0' }],
    });
    await svc.publish('partners.partner.deleted', 1, partnerRecord(1, 2, { partnername: 'Globex 100%_off', display_name: 'Globex' }));
    await waitFor(async () => !!(await svc.db('partner_directory').where({ org_id: 1, id: 2 }).whereNotNull('deleted_at').first()));
    expect(await create({ partner: 2 })).toMatchObject({ ok: false, code: 'not_found', errors: [{ field: 'partner' }] });
    expect(await snapshot()).toEqual(before);
  });

  it('keeps the partner read model from events, the highest version winning even within one second, delete final', async () => {
    // Every edit in the same second: only the version tells them apart.
    const p = partnerRecord(1, 40, { partnername: 'Initech', updated_at: '2026-02-01T00:00:00', version: 1 });
    await svc.publish('partners.partner.created', 1, p);
    await svc.publish('partners.partner.updated', 1, { ...p, partnername: 'Initech Global', currency: 'GBP', version: 3 });
    await waitFor(async () => (await svc.db('partner_directory').where({ org_id: 1, id: 40 }).first())?.partnername === 'Initech Global');
    // An older version arriving late changes nothing.
    const late = await svc.publish('partners.partner.updated', 1, { ...p, partnername: 'Initech Old', version: 2 });
    await waitFor(async () => !!(await svc.db('inbox').where({ consumer: 'sales.partner-directory', event_id: late.id }).first()));
    const calls = partners.calls();
    const q = await createOk({ partner: 40 });
    expect(partners.calls()).toBe(calls); // known from events: no lookup
    const total = ok(await call('sales.quotation.total', { quotation_id: q.id, calculate_total: true }));
    expect(total.currency).toBe('GBP');
    expect(await svc.db('partner_directory').where({ org_id: 1, id: 40 }).first()).toMatchObject({
      partnername: 'Initech Global',
      currency: 'GBP',
      version: 3,
      deleted_at: null,
    });
  });

  describe('lines, edits, cancel and expiry', () => {
    it('adds lines to draft and sent quotations; totals follow', async () => {
      const q = await createOk({ line_items: [specLine] });
      const added = ok(
        await call('sales.quotation.add_line', {
          action: 'add_line',
          quotation_id: q.id,
          product_id: 8,
          quantity: '1.5',
          price: '10.10',
          tax_rate: 20,
          tax_included: false,
          total: 999,
        }),
      );
      expect(added.line_item).toEqual({
        // No name given: the line keeps the catalog's.
        id: expect.any(Number),
        quotation_id: q.id,
        product_id: '8',
        variant_id: null,
        location_id: null,
        product_name: 'Product 8',
        sku: null,
        uom: null,
        description: null,
        quantity: 1.5,
        price: 10.1,
        discount: 0,
        tax_rate: 20,
        // No category given: a rate above 0 is standard-rated.
        tax_category: 'S',
        tax_exemption_reason: null,
        tax_exemption_code: null,
        reverse_charge_rate: null,
        tax_included: false,
        subtotal: 15.15,
        tax_amount: 3.03,
        total: 18.18,
      });
      expect(added.totals).toEqual({
        subtotal: 240.15,
        tax_amount: 36.78,
        discount_total: 25,
        quotation_total: 276.93,
        // One row per rate, its VAT rounded once on its base.
        tax_breakdown: [
          { tax_category: 'S', tax_rate: 15, taxable_amount: 225, tax_amount: 33.75, exemption_reason: null, exemption_code: null },
          { tax_category: 'S', tax_rate: 20, taxable_amount: 15.15, tax_amount: 3.03, exemption_reason: null, exemption_code: null },
        ],
        vat_total: 36.78,
        rounding_amount: 0,
      });
      ok(await call('sales.quotation.edit', { action: 'edit_quotation', quotation_id: q.id, quotation_status: 'sent' }));
      ok(
        await call('sales.quotation.add_line', {
          action: 'add_line',
          quotation_id: q.id,
          product_id: 9,
          quantity: 1,
          price: 1,
          tax_rate: 0,
          tax_included: false,
        }),
      );
      const total = ok(await call('sales.quotation.total', { quotation_id: q.id, calculate_total: true }));
      expect(total).toEqual({
        message: expect.any(String),
        quotation_id: q.id,
        subtotal: 241.15,
        tax_amount: 36.78,
        discount_total: 25,
        quotation_total: 277.93,
        currency: 'USD',
        tax_breakdown: [
          { tax_category: 'S', tax_rate: 15, taxable_amount: 225, tax_amount: 33.75, exemption_reason: null, exemption_code: null },
          { tax_category: 'S', tax_rate: 20, taxable_amount: 15.15, tax_amount: 3.03, exemption_reason: null, exemption_code: null },
          // A rate of 0 without a category is zero-rated.
          { tax_category: 'Z', tax_rate: 0, taxable_amount: 1, tax_amount: 0, exemption_reason: null, exemption_code: null },
        ],
        vat_total: 36.78,
        rounding_amount: 0,
      });
    });

    it('keeps every line and its amounts when lines are added in parallel', async () => {
      const q = await createOk();
      const replies = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          call('sales.quotation.add_line', {
            action: 'add_line',
            quotation_id: q.id,
            product_id: i + 1,
            quantity: 1,
            price: '10.01',
            tax_rate: 10,
            tax_included: false,
          }),
        ),
      );
      replies.forEach((r) => ok(r));
      const totals = ok(await call('sales.quotation.total', { quotation_id: q.id, calculate_total: true }));
      // Each line: 10.01 + 1.00 tax (1.001 rounded) = 11.01.
      expect(totals).toMatchObject({ subtotal: 120.12, tax_amount: 12, quotation_total: 132.12 });
      expect(await svc.db('quotations').where({ id: q.id }).first()).toMatchObject({ line_count: 12, total: '132.12' });
      expect(await svc.db('quotation_lines').where({ quotation_id: q.id }).count({ n: '*' })).toEqual([{ n: 12 }]);
    });

    it('moves draft <-> sent -> accepted and refuses every other move, naming the status and changing nothing', async () => {
      const q = await createOk();
      const edit = (fields: Record<string, unknown>) =>
        call('sales.quotation.edit', { action: 'edit_quotation', quotation_id: q.id, ...fields });
      expect(ok(await edit({ quotation_status: 'sent' })).quotation.quotation_status).toBe('sent');
      expect(ok(await edit({ quotation_status: 'draft' })).quotation.quotation_status).toBe('draft');
      const before = await snapshot();
      const refused = await edit({ quotation_status: 'accepted', comments: 'x' });
      expect(refused).toMatchObject({ ok: false, status: 400, code: 'invalid_state' });
      expect(!refused.ok && refused.message).toContain('in status draft');
      expect(await edit({ quotation_status: 'converted' })).toMatchObject({ ok: false, code: 'invalid_state' });
      expect(await edit({ quotation_status: 'cancelled' })).toMatchObject({ ok: false, code: 'invalid_state' });
      expect(await edit({ quotation_status: 'expired' })).toMatchObject({ ok: false, code: 'invalid_state' });
      expect(await edit({ valid_until: '2000-01-01' })).toMatchObject({
        ok: false,
        code: 'validation_failed',
        errors: [{ field: 'valid_until' }],
      });
      expect(await edit({ quotation_number: 'QUO-00001' })).toMatchObject({
        ok: false,
        code: 'duplicate',
        errors: [{ field: 'quotation_number' }],
      });
      expect(await edit({ quotation_status: 'bogus' })).toMatchObject({
        ok: false,
        code: 'validation_failed',
        errors: [{ field: 'quotation_status' }],
      });
      expect(await snapshot()).toEqual(before);
      expect(ok(await edit({ quotation_status: 'sent' })).quotation.quotation_status).toBe('sent');
      const accepted = ok(
        await edit({
          quotation_status: 'accepted',
          quotation_number: 'Q-SPECIAL',
          valid_until: daysFromToday(60),
          comments: 'Signed',
          quotation_reference: 'REF-1',
        }),
      );
      expect(accepted.quotation).toEqual({
        id: q.id,
        quotation_number: 'Q-SPECIAL',
        quotation_status: 'accepted',
        valid_until: daysFromToday(60),
        comments: 'Signed',
        quotation_reference: 'REF-1',
        // No lines: every figure is 0, in the partner's currency, under the default policy.
        subtotal: 0,
        tax_amount: 0,
        quotation_total: 0,
        currency: 'USD',
        exchange_rate: null,
        rounding: 'line',
        allowances_charges: [],
        tax_breakdown: [],
        allowance_total: 0,
        charge_total: 0,
        vat_total: 0,
        rounding_amount: 0,
      });
      const before2 = await snapshot();
      for (const to of ['sent', 'draft']) {
        const r = await edit({ quotation_status: to });
        expect(r).toMatchObject({ ok: false, code: 'invalid_state' });
        expect(!r.ok && r.message).toContain('in status accepted');
      }
      expect(await call('sales.quotation.add_line', { action: 'add_line', quotation_id: q.id, ...specLine })).toMatchObject({
        ok: false,
        code: 'invalid_state',
      });
      expect(await snapshot()).toEqual(before2);
    });

    it('cancels anything not converted once; a cancelled quotation takes no lines or edits', async () => {
      const q = await createOk({ line_items: [specLine] });
      expect(ok(await call('sales.quotation.cancel', { action: 'cancel_quotation', quotation_id: q.id })).message).toContain('cancelled');
      const before = await snapshot();
      const again = await call('sales.quotation.cancel', { action: 'cancel_quotation', quotation_id: q.id });
      expect(again).toMatchObject({ ok: false, code: 'invalid_state' });
      expect(!again.ok && again.message).toContain('in status cancelled');
      expect(await call('sales.quotation.add_line', { action: 'add_line', quotation_id: q.id, ...specLine })).toMatchObject({
        ok: false,
        code: 'invalid_state',
      });
      expect(await call('sales.quotation.edit', { action: 'edit_quotation', quotation_id: q.id, comments: 'revive' })).toMatchObject({
        ok: false,
        code: 'invalid_state',
      });
      expect(await call('sales.quotation.edit', { action: 'edit_quotation', quotation_id: q.id, userid: 'u9' })).toMatchObject({
        ok: false,
        code: 'invalid_state',
        message: expect.stringContaining('in status cancelled'),
      });
      expect(await call('sales.quotation.edit', { action: 'edit_quotation', quotation_id: q.id, quotation_status: 'draft' })).toMatchObject(
        { ok: false, code: 'invalid_state' },
      );
      expect(await snapshot()).toEqual(before);
    });

    it('expires draft and sent quotations after valid_until, everywhere the status shows', async () => {
      const q = await createOk({
        quotation_date: '2025-01-10T08:00:00',
        valid_until: '2025-01-31',
        quotation_reference: 'EXPIRY-TEST',
        line_items: [specLine],
      });
      expect(q.quotation_status).toBe('expired');
      const listed = ok(await call('sales.quotation.list', { status: 'expired', search_key: q.quotation_number }));
      expect(listed.quotations.map((r: any) => [r.id, r.quotation_status])).toEqual([[q.id, 'expired']]);
      expect(ok(await call('sales.quotation.list', { status: 'draft', search_key: q.quotation_number })).quotations).toEqual([]);
      const before = await snapshot();
      for (const r of [
        await call('sales.quotation.add_line', { action: 'add_line', quotation_id: q.id, ...specLine }),
        await call('sales.quotation.edit', { action: 'edit_quotation', quotation_id: q.id, valid_until: LATER }),
        await call('sales.quotation.edit', { action: 'edit_quotation', quotation_id: q.id, quotation_status: 'sent' }),
        await call('sales.quotation.convert', { action: 'convert_to_invoice', quotation_id: q.id, invoicetype: 'invoiceout' }),
      ]) {
        expect(r).toMatchObject({ ok: false, code: 'invalid_state' });
        expect(!r.ok && r.message).toContain('in status expired');
      }
      expect(await snapshot()).toEqual(before);
      ok(await call('sales.quotation.cancel', { action: 'cancel_quotation', quotation_id: q.id }));
      expect((await svc.db('quotations').where({ id: q.id }).first()).status).toBe('cancelled');
    });
  });

  it('lists newest first with the partner object, search, filters and pagination', async () => {
    const page = ok(await call('sales.quotation.list', { page_size: 2 }));
    const all = await svc.db('quotations').where({ org_id: 1 }).orderBy('id', 'desc');
    expect(page.pagination).toEqual({
      page_number: 1,
      page_size: 2,
      total_items: all.length,
      total_pages: Math.ceil(all.length / 2),
      has_next: true,
      has_previous: false,
    });
    expect(page.quotations.map((r: any) => r.id)).toEqual(all.slice(0, 2).map((r: any) => r.id));
    const second = ok(await call('sales.quotation.list', { page_size: 2, page_number: 2 }));
    expect(second.quotations.map((r: any) => r.id)).toEqual(all.slice(2, 4).map((r: any) => r.id));

    const acme = ok(await call('sales.quotation.list', { search_key: 'acme', page_size: 100 }));
    expect(acme.quotations.length).toBe(all.filter((r: any) => r.partner_id === 1).length);
    expect(acme.quotations[0].partner).toEqual({ id: 1, partnername: 'Acme Corp', display_name: 'Acme' });
    expect(acme.quotations[0]).toHaveProperty('quotation_total');
    const byNumber = ok(await call('sales.quotation.list', { search_key: 'quo-00001' }));
    expect(byNumber.quotations.map((r: any) => r.quotation_number)).toEqual(['QUO-00001']);
    // LIKE wildcards are literal: "100%_" matches Globex's name only.
    expect(ok(await call('sales.quotation.list', { search_key: '%' })).quotations).toEqual([]);
    const proformas = ok(await call('sales.quotation.list', { quotation_type: 'proforma' }));
    expect(proformas.quotations.map((r: any) => r.quotation_number)).toEqual(['PRO-00001']);
    const cancelled = ok(await call('sales.quotation.list', { status: 'cancelled' }));
    expect(cancelled.quotations.length).toBe(all.filter((r: any) => r.status === 'cancelled').length);
    expect(cancelled.quotations.every((r: any) => r.quotation_status === 'cancelled')).toBe(true);
    expect(await call('sales.quotation.list', { page_size: 101 })).toMatchObject({ ok: false, errors: [{ field: 'page_size' }] });
  });

  it("never shows or touches another organization's quotation", async () => {
    const theirs = await createOk({ partner: 9, line_items: [specLine] }, 2);
    const before = await snapshot();
    for (const [op, extra] of [
      ['sales.quotation.add_line', { action: 'add_line', ...specLine }],
      ['sales.quotation.edit', { action: 'edit_quotation', comments: 'mine now' }],
      ['sales.quotation.cancel', { action: 'cancel_quotation' }],
      ['sales.quotation.convert', { action: 'convert_to_invoice', invoicetype: 'invoiceout' }],
      ['sales.quotation.total', { calculate_total: true }],
      ['sales.quotation.get', {}],
    ] as const) {
      expect(await call(op, { ...extra, quotation_id: theirs.id }, 1)).toMatchObject({
        ok: false,
        status: 400,
        code: 'not_found',
        errors: [{ field: 'quotation_id' }],
      });
    }
    expect(await snapshot()).toEqual(before);
    const mine = ok(await call('sales.quotation.list', { search_key: 'Other Org', page_size: 100 }, 1));
    expect(mine.quotations).toEqual([]);
    const theirList = ok(await call('sales.quotation.list', { page_size: 100 }, 2));
    expect(theirList.quotations.every((r: any) => r.orgid === 2)).toBe(true);
  });

  describe('lines know the catalog', () => {
    it('keeps a snapshot of the product and takes its price and description when the line gives none', async () => {
      catalog.products.set(501, { name: 'Drill', sku: 'DR-1', uom: 'pcs', price: 89.9, description: 'Cordless drill', type: 'inventory' });
      catalog.locations.add('77');
      const q = await createOk({ line_items: [{ product_id: 501, location_id: 77, quantity: 2, tax_rate: 0, tax_included: false }] });
      expect(q.line_items).toEqual([
        expect.objectContaining({
          product_id: '501',
          location_id: '77',
          product_name: 'Drill',
          sku: 'DR-1',
          uom: 'pcs',
          description: 'Cordless drill',
          price: 89.9,
          total: 179.8,
        }),
      ]);
      // A later catalog edit never rewrites the document: it is read back as it was made.
      catalog.products.set(501, { name: 'Drill v2', sku: 'DR-2', price: 99 });
      const read = ok(await call('sales.quotation.get', { quotation_id: q.id })).quotation;
      expect(read).toEqual({ ...q, quotation_status: read.quotation_status });
      const added = ok(
        await call('sales.quotation.add_line', {
          action: 'add_line',
          quotation_id: q.id,
          product_id: 501,
          quantity: 1,
          price: 80,
          tax_rate: 0,
          tax_included: false,
        }),
      ).line_item;
      expect(added).toMatchObject({ product_name: 'Drill v2', sku: 'DR-2', price: 80 });
      expect(ok(await call('sales.quotation.get', { quotation_id: q.id })).quotation.line_items.map((l: any) => l.sku)).toEqual([
        'DR-1',
        'DR-2',
      ]);
    });

    it('refuses unknown or deleted products, variants and locations, naming the line and field, writing nothing', async () => {
      catalog.missing.add(666);
      const q = await createOk({ line_items: [specLine] });
      const before = await snapshot();
      expect(await create({ line_items: [specLine, { ...specLine, product_id: 666 }, { ...specLine, product_id: 'abc' }] })).toMatchObject({
        ok: false,
        status: 400,
        code: 'not_found',
        errors: [{ field: 'line_items.1.product_id' }, { field: 'line_items.2.product_id' }],
      });
      expect(
        await create({
          line_items: [
            { ...specLine, variant_id: 5 },
            { ...specLine, location_id: '999' },
          ],
        }),
      ).toMatchObject({
        ok: false,
        status: 400,
        errors: [{ field: 'line_items.0.variant_id' }, { field: 'line_items.1.location_id' }],
      });
      expect(
        await call('sales.quotation.add_line', { action: 'add_line', quotation_id: q.id, ...specLine, product_id: 666 }),
      ).toMatchObject({
        ok: false,
        status: 400,
        code: 'not_found',
        errors: [{ field: 'product_id' }],
      });
      expect(await snapshot()).toEqual(before);
    });

    it('answers 503 while catalog is down, records nothing, and the same key succeeds once it is back', async () => {
      const q = await createOk({ line_items: [specLine] });
      await catalog.stop();
      const before = await snapshot();
      const key = { operationKey: 'catalog-down-1', requestId: 'r1' };
      const payload = {
        action: 'create_quotation',
        partner: '1',
        quotation_type: 'quotation',
        quotation_date: `${TODAY}T09:30:00`,
        valid_until: LATER,
        line_items: [specLine],
      };
      expect(await svc.call('sales.quotation.create', payload, 1, key)).toMatchObject({
        ok: false,
        status: 503,
        code: 'service_unavailable',
      });
      expect(await svc.call('sales.quotation.add_line', { action: 'add_line', quotation_id: q.id, ...specLine })).toMatchObject({
        ok: false,
        status: 503,
      });
      expect(await snapshot()).toEqual(before);
      catalog = await testing.startCatalogStub(svc);
      expect(ok(await svc.call('sales.quotation.create', payload, 1, key)).quotation.line_items).toHaveLength(1);
    });
  });
});
