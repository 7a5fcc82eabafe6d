import { createHash, randomUUID } from 'node:crypto';
import { parseWith, sales, type RpcReply } from '@bo/contracts';
import { formatDate, formatDateTime, toNumber } from '@bo/kernel';
import { filledIn, NotAsDecided, storeAlone, type BaseConfig, type OneStatementWrite } from '@bo/runtime';
import { documentTaxFields, readDocumentParty, toBreakdownRecord } from '@bo/billing';
import * as testing from '@bo/testkit';
import { makePng } from '../../../tests/support/png';
import { claimAttempt } from '../src/conversion/conversion';
import { freezeOf } from '../src/conversion/decide-claim';
import { addQuotationLineHandler } from '../src/quotation/add-line.handler';
import { decideAddLine } from '../src/quotation/decide-add-line';
import { decideCreateQuotation, type CreateQuotationRequest } from '../src/quotation/decide-create-quotation';
import { decideEditQuotation, type EditQuotationRequest } from '../src/quotation/decide-edit-quotation';
import { editQuotationHandler } from '../src/quotation/edit-quotation.handler';
import { priceLine } from '../src/quotation/quotation-lines';
import { resolvedLine } from '../src/quotation/quotation-row.fixtures';
import { effectiveStatus } from '../src/quotation/quotation-status';
import { toLineRecord, type LineRow, type QuotationRow } from '../src/quotation/quotation.record';
import {
  lineAddedAlone,
  loadQuotation,
  newQuotationAlone,
  newQuotationDrawn,
  newQuotationDraws,
  quotationEditAlone,
  readQuotationWithToday,
} from '../src/quotation/quotation.repository';
import { salesService } from '../src/service';
import { contractCall, daysFromToday, fakeInvoicing, fakePartners, ok, partnerRecord } from './support';

const TODAY = daysFromToday(0);
const LATER = daysFromToday(30);
const RPC_TIMEOUT_MS = 2000;
const specLine = { product_id: 7, product_name: 'Widget', quantity: 5, price: 50, discount: 10, tax_rate: 15, tax_included: false };
/** 1.5 of product 8 at 10.10, 20% VAT, as the catalog check completes it. */
const addedLine = { product_id: 8, quantity: '1.5', price: '10.10', tax_rate: 20, tax_included: false };
const priced = priceLine(resolvedLine());
const logo = makePng({ width: 2, height: 1, colourType: 2 });
/** What storeAlone answers for a store the tests run directly (the reply is the decision's, filled in). */
const answer: RpcReply = { ok: true, status: 200, body: {} };

/**
 * The quotation writes are load → decide → store, one statement as a rule: the store decided on an
 * unlocked read writes only while what it read still holds (the quotation is the row read; the
 * number it takes is free and the partner unfenced), else nothing, and the locked way answers. What
 * the service answers is what it stored.
 */
describe('quotation writes as one statement', () => {
  let svc: testing.TestService;
  let catalog: testing.CatalogStub;
  let call: ReturnType<typeof contractCall>;
  beforeAll(async () => {
    svc = await testing.startTestService(salesService, { RPC_TIMEOUT_MS: String(RPC_TIMEOUT_MS) });
    catalog = await testing.startCatalogStub(svc);
    call = contractCall(svc);
    const partners = await fakePartners(svc);
    await fakeInvoicing(svc);
    partners.add(partnerRecord(1, 1, { partnername: 'Acme Corp', display_name: 'Acme', currency: 'USD', tax_number: 'FR40303265045' }));
    partners.setProfile(testing.profileRecord(1, { legal_name: 'Seller Ltd', vat_id: 'IE6388047V', logo_png: logo.toString('base64') }));
  });
  afterAll(async () => {
    await catalog?.stop();
    await svc?.stop();
  });

  const createOk = async (fields: Record<string, unknown> = {}) =>
    ok(
      await call('sales.quotation.create', {
        action: 'create_quotation',
        partner: 1,
        quotation_type: 'quotation',
        quotation_date: `${TODAY}T09:30:00`,
        valid_until: LATER,
        line_items: [specLine],
        ...fields,
      }),
    ).quotation;
  const keyed = () => ({ operationKey: randomUUID() });
  const addLine = (id: number, fields: Record<string, unknown> = {}) =>
    call('sales.quotation.add_line', { action: 'add_line', quotation_id: id, userid: 'u7', ...addedLine, ...fields }, 1, keyed());
  const edit = (id: number, fields: Record<string, unknown>) =>
    call('sales.quotation.edit', { action: 'edit_quotation', quotation_id: id, userid: 'u8', ...fields }, 1, keyed());
  const get = async (id: number) => ok(await call('sales.quotation.get', { quotation_id: id })).quotation;
  const row = async (id: number) => (await svc.db('quotations').where({ id }).first()) as QuotationRow;
  const linesOf = async (id: number) => (await svc.db('quotation_lines').where({ quotation_id: id }).orderBy('id')) as LineRow[];
  /** The quotation and its lines as stored. */
  const stored = async (id: number) => ({ quotation: await row(id), lines: await linesOf(id) });
  /** Freezes the quotation as a conversion's claim does, with no invoicing asked. */
  const freeze = async (id: number) => {
    const read = await readQuotationWithToday(svc.db, 1, id);
    const driver = { actor: 'u7' };
    const clock = { nowMs: Date.now(), rpcTimeoutMs: RPC_TIMEOUT_MS };
    const config = { RPC_TIMEOUT_MS } as BaseConfig;
    expect(
      await claimAttempt(svc.db, read.quotation, freezeOf(read.quotation, 'invoiceout', driver, clock), driver, config, read.read),
    ).toBeDefined();
  };
  const one = (write: Pick<OneStatementWrite, 'parts' | 'expects' | 'fills'>, reply: Record<string, unknown>): OneStatementWrite => ({
    ...write,
    events: [],
    reply,
  });

  describe('adding a line', () => {
    it('stores a line decided on a read only while the quotation is the row read: a line added meanwhile leaves it to the lock', async () => {
      const q = await createOk();
      const stale = await loadQuotation(svc.db, 1, q.id, { lines: true, drawLineId: true });
      const added = decideAddLine(stale, priced, 'u7');
      // Meanwhile a line is added through the service.
      ok(await addLine(q.id, { product_id: 9, price: 1, quantity: 1, tax_rate: 0 }));
      const before = await stored(q.id);
      await expect(storeAlone(svc.db, one(lineAddedAlone(added, stale.read), added.reply), undefined, answer)).rejects.toBeInstanceOf(
        NotAsDecided,
      );
      expect(await stored(q.id)).toEqual(before);
      expect(await svc.db('quotation_lines').where({ id: added.line.id }).first()).toBeUndefined();

      // Read and stored with nothing between: written by the one statement, as decided.
      const fresh = await loadQuotation(svc.db, 1, q.id, { lines: true, drawLineId: true });
      const decided = decideAddLine(fresh, priced, 'u7');
      const reply = await storeAlone(svc.db, one(lineAddedAlone(decided, fresh.read), decided.reply), undefined, answer);
      expect(reply).toEqual(answer);
      const after = await stored(q.id);
      expect(after.lines.map((l) => l.id)).toEqual([...before.lines.map((l) => l.id), decided.line.id]);
      expect(toLineRecord(after.lines.at(-1)!)).toEqual(decided.reply.line_item);
      expect(after.quotation).toMatchObject({ line_count: 3, total: decided.header.total, updated_by: 'u7' });
    });

    it('leaves a line decided before a conversion froze the quotation to the lock, which refuses it until the conversion ends', async () => {
      const q = await createOk();
      const read = await loadQuotation(svc.db, 1, q.id, { lines: true, drawLineId: true });
      const added = decideAddLine(read, priced, 'u7');
      await freeze(q.id);
      const before = await stored(q.id);
      await expect(storeAlone(svc.db, one(lineAddedAlone(added, read.read), added.reply), undefined, answer)).rejects.toBeInstanceOf(
        NotAsDecided,
      );
      expect(await addLine(q.id)).toMatchObject({ ok: false, status: 400, code: 'invalid_state' });
      expect(await stored(q.id)).toEqual(before);
    });

    it('answers what it stored: the line as written, the totals, breakdown and line count of the quotation', async () => {
      const q = await createOk();
      const reply = ok(await addLine(q.id));
      const { quotation, lines } = await stored(q.id);
      expect(lines).toHaveLength(2);
      expect(reply.line_item).toEqual(toLineRecord(lines[1]!));
      expect(reply.totals).toEqual({
        subtotal: toNumber(quotation.subtotal),
        tax_amount: toNumber(quotation.tax_amount),
        discount_total: toNumber(quotation.discount_total),
        quotation_total: toNumber(quotation.total),
        vat_total: toNumber(quotation.vat_total),
        rounding_amount: toNumber(quotation.rounding_amount),
        tax_breakdown: quotation.tax_breakdown.map(toBreakdownRecord),
      });
      expect(reply.totals).toMatchObject({ subtotal: 240.15, tax_amount: 36.78, quotation_total: 276.93 });
      expect(quotation).toMatchObject({ line_count: 2, updated_by: 'u7' });
      expect((await get(q.id)).line_items.at(-1)).toEqual(reply.line_item);
    });

    it('adds every line of a burst, the ones whose store found the quotation moved the locked way, each answering what it stored', async () => {
      const q = await createOk();
      const replies = await Promise.all(
        Array.from({ length: 8 }, (_, i) => addLine(q.id, { product_id: 20 + i, quantity: 1, price: '10.01', tax_rate: 10 })),
      );
      // Every one answered, and what each answered is stored.
      expect(replies.filter((r) => !r.ok)).toEqual([]);
      const { quotation, lines } = await stored(q.id);
      expect(lines).toHaveLength(9);
      expect(quotation).toMatchObject({ line_count: 9, total: '346.83' });
      for (const reply of replies) expect(ok(reply).line_item).toEqual(toLineRecord(lines.find((l) => l.id === ok(reply).line_item.id)!));
      // Each answered the totals as its line left them; the last of them is what stands.
      expect(replies.map((r) => ok(r).totals.quotation_total)).toContain(346.83);
    });

    it('answers the same the locked way as the one statement, for the same line on the same quotation', async () => {
      const [a, b] = [await createOk(), await createOk()];
      const alone = ok(await addLine(a.id));
      const req = parseWith(sales.addQuotationLine.request, {
        org_id: 1,
        action: 'add_line',
        quotation_id: b.id,
        userid: 'u7',
        ...addedLine,
      });
      if (!req.ok) throw new Error('the request is refused');
      const locked = await svc.db.transaction((trx) =>
        addQuotationLineHandler.run(req.value, { db: trx, orgId: 1, requestId: 'r1' } as never, priced),
      );
      const ids = (r: Record<string, any>) => ({ ...r, line_item: { ...r.line_item, id: 0, quotation_id: 0 } });
      expect(ids(locked)).toEqual(ids(alone));
      expect(locked.line_item).toEqual(toLineRecord((await linesOf(b.id))[1]!));
    });
  });

  describe('editing', () => {
    const editRequest = (body: Record<string, unknown>): EditQuotationRequest => {
      const parsed = parseWith(sales.editQuotation.request, { org_id: 1, action: 'edit_quotation', ...body });
      if (!parsed.ok) throw new Error('the request is refused');
      return parsed.value;
    };

    it('stores an edit decided on a read only while the quotation is the row read: a line added meanwhile leaves it to the lock', async () => {
      const q = await createOk();
      const stale = await loadQuotation(svc.db, 1, q.id, { lines: false });
      const decided = decideEditQuotation(stale, editRequest({ quotation_id: q.id, comments: 'Stale' }), null, 'u8');
      ok(await addLine(q.id));
      const before = await stored(q.id);
      await expect(
        storeAlone(svc.db, one(quotationEditAlone(decided, stale.read), decided.reply), undefined, answer),
      ).rejects.toBeInstanceOf(NotAsDecided);
      expect(await stored(q.id)).toEqual(before);

      const fresh = await loadQuotation(svc.db, 1, q.id, { lines: false });
      const again = decideEditQuotation(fresh, editRequest({ quotation_id: q.id, comments: 'Fresh' }), null, 'u8');
      await storeAlone(svc.db, one(quotationEditAlone(again, fresh.read), again.reply), undefined, answer);
      expect(await row(q.id)).toMatchObject({ comments: 'Fresh', updated_by: 'u8', total: before.quotation.total });
    });

    it('leaves an edit decided before a conversion froze the quotation to the lock, which refuses it until the conversion ends', async () => {
      const q = await createOk();
      const read = await loadQuotation(svc.db, 1, q.id, { lines: true });
      const decided = decideEditQuotation(read, editRequest({ quotation_id: q.id, allowances_charges: [] }), null, 'u8');
      await freeze(q.id);
      const before = await stored(q.id);
      await expect(
        storeAlone(svc.db, one(quotationEditAlone(decided, read.read), decided.reply), undefined, answer),
      ).rejects.toBeInstanceOf(NotAsDecided);
      expect(await edit(q.id, { comments: 'late' })).toMatchObject({ ok: false, status: 400, code: 'invalid_state' });
      expect(await edit(q.id, { quotation_status: 'sent' })).toMatchObject({ ok: false, status: 400, code: 'invalid_state' });
      expect(await stored(q.id)).toEqual(before);
    });

    it('leaves an edit to a number another quotation took meanwhile to the lock, which answers the duplicate', async () => {
      const q = await createOk();
      const read = await loadQuotation(svc.db, 1, q.id, { lines: false });
      const decided = decideEditQuotation(read, editRequest({ quotation_id: q.id, quotation_number: 'Q-RACE' }), null, 'u8');
      await createOk({ quotation_number: 'Q-RACE' });
      const before = await stored(q.id);
      await expect(
        storeAlone(svc.db, one(quotationEditAlone(decided, read.read), decided.reply), undefined, answer),
      ).rejects.toBeInstanceOf(NotAsDecided);
      expect(await edit(q.id, { quotation_number: 'Q-RACE' })).toMatchObject({
        ok: false,
        code: 'duplicate',
        errors: [{ field: 'quotation_number' }],
      });
      expect(await stored(q.id)).toEqual(before);
    });

    /** The edit's reply as the stored row tells it. */
    const asStored = (r: QuotationRow) => ({
      id: r.id,
      quotation_number: r.quotation_number,
      quotation_status: effectiveStatus(r.status, formatDate(r.valid_until) as string, TODAY),
      valid_until: formatDate(r.valid_until),
      comments: r.comments,
      quotation_reference: r.quotation_reference,
      subtotal: toNumber(r.subtotal),
      tax_amount: toNumber(r.tax_amount),
      quotation_total: toNumber(r.total),
      ...documentTaxFields(r),
    });

    it('answers what it stored: a header edit, an allowance computed in, a draft sent with its parties frozen, and back to draft', async () => {
      const q = await createOk();
      const header = ok(
        await edit(q.id, { quotation_number: ' Q-EDITED ', comments: 'Signed', quotation_reference: 'REF-9', valid_until: LATER }),
      );
      expect(header.quotation).toEqual(asStored(await row(q.id)));
      expect(header.quotation).toMatchObject({ quotation_number: 'Q-EDITED', comments: 'Signed' });

      const allowance = ok(
        await edit(q.id, { allowances_charges: [{ charge: false, amount: '5', reason: 'Loyalty', tax_rate: 15 }], exchange_rate: '0.92' }),
      );
      expect(allowance.quotation).toEqual(asStored(await row(q.id)));
      expect(allowance.quotation).toMatchObject({ subtotal: 220, quotation_total: 253, allowance_total: 5, exchange_rate: 0.92 });

      const sent = ok(await edit(q.id, { quotation_status: 'sent' }));
      const frozen = await row(q.id);
      expect(sent.quotation).toEqual(asStored(frozen));
      expect(frozen).toMatchObject({ status: 'sent', updated_by: 'u8', currency: 'USD' });
      const sha256 = createHash('sha256').update(logo).digest('hex');
      expect(frozen.issued_parties).toMatchObject({ seller: { name: 'Seller Ltd' }, buyer: { name: 'Acme Corp' }, logo_sha256: sha256 });
      expect(await svc.db('document_logos').where({ org_id: 1, sha256 }).first()).toMatchObject({ png: logo });

      const draft = ok(await edit(q.id, { quotation_status: 'draft' }));
      expect(draft.quotation).toEqual(asStored(await row(q.id)));
      expect(await row(q.id)).toMatchObject({ status: 'draft', issued_parties: null, accounting_currency: null });
    });

    it('takes a burst of edits, the ones whose store found the quotation moved the locked way, the last standing', async () => {
      const q = await createOk();
      const replies = await Promise.all(Array.from({ length: 6 }, (_, i) => edit(q.id, { comments: `Edit ${i}` })));
      const comments = replies.map((r) => ok(r).quotation.comments);
      expect(new Set(comments).size).toBe(6);
      expect(comments).toContain((await row(q.id)).comments);
    });

    it('answers the same the locked way as the one statement, for the same edit of the same quotation', async () => {
      const [a, b] = [await createOk(), await createOk()];
      const body = { allowances_charges: [{ charge: true, percent: '10', reason: 'Freight', tax_rate: 15 }], comments: 'Both' };
      const alone = ok(await edit(a.id, body));
      const locked = await svc.db.transaction((trx) =>
        editQuotationHandler.run(
          editRequest({ quotation_id: b.id, userid: 'u8', ...body }),
          { db: trx, orgId: 1, requestId: 'r2' } as never,
          {
            parties: null,
          },
        ),
      );
      const ids = (r: Record<string, any>) => ({ ...r, quotation: { ...r.quotation, id: 0, quotation_number: '' } });
      expect(ids(locked)).toEqual(ids(alone));
      expect(locked.quotation).toEqual(asStored(await row(b.id)));
    });
  });

  describe('creating', () => {
    const createRequest = (body: Record<string, unknown> = {}): CreateQuotationRequest => {
      const parsed = parseWith(sales.createQuotation.request, {
        org_id: 1,
        action: 'create_quotation',
        partner: 1,
        quotation_type: 'quotation',
        quotation_date: `${TODAY}T09:30:00`,
        valid_until: LATER,
        line_items: [specLine],
        ...body,
      });
      if (!parsed.ok) throw new Error('the request is refused');
      return parsed.value;
    };
    /** A create decided as the handler decides it, on a read of the partner that drew its ids. */
    const decided = async (req: CreateQuotationRequest) => {
      const reading = await readDocumentParty({ db: svc.db, orgId: 1 }, 1, newQuotationDraws(1));
      const defaults = { currency: 'USD', rounding: 'line' as const, cash_rounding: null, accounting_currency: null, time_zone: null };
      const state = { lines: [priced], defaults, parties: null, today: TODAY, drawn: newQuotationDrawn(reading.beside) };
      return decideCreateQuotation(req, state, { orgId: 1, actor: 'u1' });
    };
    const everything = async () => ({
      quotations: await svc.db('quotations').orderBy('id'),
      lines: await svc.db('quotation_lines').orderBy('id'),
      series: await svc.db('document_sequences').orderBy(['org_id', 'series']),
      logos: await svc.db('document_logos').count({ n: '*' }),
    });

    it('writes nothing when the number it was decided with is taken meanwhile, by hand or by the series', async () => {
      await createOk();
      // A supplied number another quotation took meanwhile.
      const supplied = await decided(createRequest({ quotation_number: 'Q-HAND' }));
      await createOk({ quotation_number: 'Q-HAND' });
      let before = await everything();
      await expect(storeAlone(svc.db, one(newQuotationAlone(supplied), {}), undefined, answer)).rejects.toBeInstanceOf(NotAsDecided);
      expect(await everything()).toEqual(before);

      // The series' next number typed by hand meanwhile: the series is not advanced either.
      const next = await svc.db('document_sequences').where({ org_id: 1, series: 'QUO-' }).first();
      const numbered = await decided(createRequest());
      await createOk({ quotation_number: `QUO-${String(Number(next.last_value) + 1).padStart(5, '0')}` });
      before = await everything();
      await expect(storeAlone(svc.db, one(newQuotationAlone(numbered), {}), undefined, answer)).rejects.toBeInstanceOf(NotAsDecided);
      expect(await everything()).toEqual(before);
      expect(await svc.db('quotations').where({ id: numbered.row.id }).first()).toBeUndefined();
    });

    it('writes nothing when the partner was fenced for its delete meanwhile, and the service then answers 503', async () => {
      const plan = await decided(createRequest());
      await svc.db('partner_delete_fences').insert({ org_id: 1, partner_id: 1, fenced_until: svc.db.raw(`now() + interval '1 minute'`) });
      try {
        const before = await everything();
        await expect(storeAlone(svc.db, one(newQuotationAlone(plan), {}), undefined, answer)).rejects.toBeInstanceOf(NotAsDecided);
        expect(await everything()).toEqual(before);
        expect(await call('sales.quotation.create', { ...createRequest(), org_id: '1' })).toMatchObject({
          ok: false,
          status: 503,
          code: 'service_unavailable',
        });
        expect(await everything()).toEqual(before);
      } finally {
        await svc.db('partner_delete_fences').where({ org_id: 1, partner_id: 1 }).delete();
      }
    });

    it('stores a create decided with nothing between as decided, filling in the number its series took', async () => {
      // Estimates have a series of their own, which nothing took by hand.
      const plan = await decided(createRequest({ userid: 'u1', quotation_type: 'estimate' }));
      const numbered = { ok: true as const, status: 200, body: { quotation_number: filledIn<string>() } };
      const reply = await storeAlone(svc.db, one(newQuotationAlone(plan), numbered.body), undefined, numbered);
      const made = await row(plan.row.id);
      expect(made).toMatchObject({
        id: plan.row.id,
        status: 'draft',
        total: plan.row.total,
        created_by: 'u1',
        created_at: plan.row.created_at,
      });
      expect(made.quotation_number).toBe('EST-00001');
      expect(reply).toEqual({ ok: true, status: 200, body: { quotation_number: made.quotation_number } });
      expect((await linesOf(plan.row.id)).map((l) => l.id)).toEqual(plan.lines.map((l) => l.id));
    });

    it('answers what it stored: a draft numbered by its series, one with a number of its own, and one created as sent', async () => {
      for (const fields of [
        { userid: 'u1', comments: 'Thanks', line_items: [specLine, { ...specLine, product_id: 9, tax_included: true }] },
        { quotation_number: ' Q-OWN-1 ', quotation_type: 'proforma', line_items: [] },
        { quotation_status: 'sent', allowances_charges: [{ charge: false, percent: '5', reason: 'Loyalty', tax_rate: 15 }] },
      ]) {
        const created = await createOk(fields);
        const read = await get(created.id);
        expect(created).toEqual(read);
        const made = await row(created.id);
        expect(created).toMatchObject({
          quotation_number: made.quotation_number,
          created_at: formatDateTime(made.created_at),
          updated_at: formatDateTime(made.updated_at),
          quotation_total: toNumber(made.total),
        });
      }
      const sent = await row((await createOk({ quotation_status: 'sent' })).id);
      expect(sent.issued_parties).toMatchObject({ seller: { name: 'Seller Ltd' }, buyer: { name: 'Acme Corp' } });
      expect(sent.accounting_currency).toBeNull();
    });
  });
});
