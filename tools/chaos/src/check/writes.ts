import type pg from 'pg';
import { describeAttempts, field, type WriteRecord } from '../client';
import { queryEventually } from '../database';
import { OPS } from '../load';
import type { FaultRecord } from '../faults';
import { byOp, examples, nearestFault, settled, type Check, type Violation } from './types';

/** Where a create-like write leaves its key: a table, the column holding it, and the id its reply names. */
interface Marker {
  op: string;
  table: string;
  column: string;
  /** The stored value is this prefix plus the key. */
  prefix?: string;
  /** Rows that copy a marker without being made by its write (recurring children copy the parent's texts). */
  exclude?: string;
  replyId(reply: Record<string, unknown>): unknown;
}

const MARKERS: Marker[] = [
  { op: OPS.partnerCreate, table: 'partners.partners', column: 'notes', replyId: (r) => field(r, 'partner', 'id') },
  {
    op: OPS.warehouseCreate,
    table: 'catalog.warehouses',
    column: 'name',
    prefix: 'Chaos depot ',
    replyId: (r) => field(r, 'warehouse', 'id'),
  },
  { op: OPS.productCreate, table: 'catalog.products', column: 'description', replyId: (r) => field(r, 'product', 'id') },
  { op: OPS.stockAdjust, table: 'catalog.stock_moves', column: 'reference', replyId: (r) => r['stock_move_id'] },
  {
    op: OPS.invoiceCreate,
    table: 'invoicing.invoices',
    column: 'invoicereference',
    exclude: 'parent_id is not null',
    replyId: (r) => field(r, 'invoice', 'id'),
  },
  { op: OPS.invoiceAddLine, table: 'invoicing.invoice_lines', column: 'description', replyId: (r) => field(r, 'line_item', 'id') },
  { op: OPS.paymentCreate, table: 'invoicing.payments', column: 'reference', replyId: (r) => field(r, 'payment', 'id') },
  { op: OPS.quotationCreate, table: 'sales.quotations', column: 'quotation_reference', replyId: (r) => field(r, 'quotation', 'id') },
  { op: OPS.quotationAddLine, table: 'sales.quotation_lines', column: 'description', replyId: (r) => field(r, 'line_item', 'id') },
];

/** An answered id as the stored ids are compared (text); anything else cannot match one. */
const idText = (id: unknown): string => (typeof id === 'string' || typeof id === 'number' ? String(id) : JSON.stringify(id));

const textOf = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** A write as evidence: its key, what each attempt got, and the fault it was first sent after. */
type Who = (rec: WriteRecord) => Record<string, unknown>;
const whoWith =
  (faults: readonly FaultRecord[]): Who =>
  (rec) => ({
    key: rec.key,
    org: rec.org,
    attempts: describeAttempts(rec.attempts),
    replay: rec.replay?.status,
    first_sent: rec.attempts[0] ? nearestFault(faults, rec.attempts[0].at) : undefined,
  });

/** Records carrying each key: a 2xx write exactly once (with the id it answered), a refused one never. */
async function checkMarker(pool: pg.Pool, m: Marker, writes: WriteRecord[], who: Who): Promise<{ violations: Violation[]; line: string }> {
  const recs = byOp(writes, m.op);
  const values = recs.map((r) => (m.prefix ?? '') + r.key);
  const rows = await queryEventually<{ marker: string; ids: Array<string | number> }>(
    pool,
    `select ${m.column} as marker, array_agg(id order by id) as ids from ${m.table}
      where ${m.column} = any($1) ${m.exclude ? `and not (${m.exclude})` : ''} group by ${m.column}`,
    [values],
  );
  const found = new Map(rows.map((r) => [r.marker.slice((m.prefix ?? '').length), r.ids.map(String)]));
  const dup: unknown[] = [];
  const lost: unknown[] = [];
  const refusedButDone: unknown[] = [];
  const wrongId: unknown[] = [];
  let ok = 0;
  let unknownDone = 0;
  let unknownNot = 0;
  for (const rec of recs) {
    const ids = found.get(rec.key) ?? [];
    const s = settled(rec);
    if (ids.length > 1) dup.push({ ...who(rec), ids });
    if (s.outcome === 'ok') {
      ok += 1;
      if (ids.length === 0) lost.push(who(rec));
      const id = s.reply ? m.replyId(s.reply) : undefined;
      if (ids.length > 0 && id !== undefined && !ids.includes(idText(id))) wrongId.push({ ...who(rec), answered: id, stored: ids });
    } else if (s.outcome === 'refused') {
      if (ids.length > 0) refusedButDone.push({ ...who(rec), code: s.code, ids });
    } else if (ids.length > 0) unknownDone += 1;
    else unknownNot += 1;
  }
  const violations: Violation[] = [];
  const name = m.op;
  if (dup.length) violations.push({ message: `${name}: ${dup.length} keys took effect more than once`, evidence: examples(dup) });
  if (lost.length)
    violations.push({ message: `${name}: ${lost.length} keys answered 2xx but left no ${m.table} row`, evidence: examples(lost) });
  if (refusedButDone.length)
    violations.push({
      message: `${name}: ${refusedButDone.length} keys answered a refusal but took effect`,
      evidence: examples(refusedButDone),
    });
  if (wrongId.length)
    violations.push({ message: `${name}: ${wrongId.length} keys answered an id that is not their row`, evidence: examples(wrongId) });
  const unknownText = unknownDone + unknownNot ? `, ${unknownDone + unknownNot} never settled (${unknownDone} took effect)` : '';
  return { violations, line: `${name} ${ok}/${recs.length} ok${unknownText}` };
}

/** Payments per document: as many as distinct keys answered 2xx (plus at most the unsettled ones). */
async function checkPayments(pool: pg.Pool, writes: WriteRecord[], who: Who): Promise<{ violations: Violation[]; line: string }> {
  const recs = byOp(writes, OPS.payment);
  const perInvoice = new Map<number, WriteRecord[]>();
  for (const r of recs) perInvoice.set(Number(r.tags['invoiceId']), [...(perInvoice.get(Number(r.tags['invoiceId'])) ?? []), r]);
  const rows = await queryEventually<{ invoice_id: number; ids: number[]; entries: string }>(
    pool,
    `select p.invoice_id, array_agg(p.id order by p.id) as ids,
            (select count(*) from invoicing.journal_entries j where j.invoice_id = p.invoice_id and j.kind = 'payment') as entries
       from invoicing.payments p where p.invoice_id = any($1) group by p.invoice_id`,
    [[...perInvoice.keys()]],
  );
  const stored = new Map(rows.map((r) => [Number(r.invoice_id), r]));
  const extra: unknown[] = [];
  const lost: unknown[] = [];
  const entryMismatch: unknown[] = [];
  const missingIds: unknown[] = [];
  let ok = 0;
  for (const [invoiceId, list] of perInvoice) {
    const row = stored.get(invoiceId);
    const ids = (row?.ids ?? []).map(Number);
    const s = list.map(settled);
    const okN = s.filter((x) => x.outcome === 'ok').length;
    const unknownN = s.filter((x) => x.outcome === 'unknown').length;
    ok += okN;
    const describe = () => ({
      invoice_id: invoiceId,
      payments: ids.length,
      ok_keys: okN,
      unsettled_keys: unknownN,
      keys: list.map((r, i) => ({ ...who(r), outcome: s[i]?.outcome, code: s[i]?.code })),
      payment_ids: ids,
    });
    if (ids.length > okN + unknownN) extra.push(describe());
    if (ids.length < okN) lost.push(describe());
    if (row && Number(row.entries) !== ids.length)
      entryMismatch.push({ invoice_id: invoiceId, payments: ids.length, payment_journal_entries: Number(row.entries) });
    for (const [i, r] of list.entries()) {
      const pid = s[i]?.outcome === 'ok' ? field(s[i]?.reply, 'payment', 'id') : undefined;
      if (pid !== undefined && !ids.includes(Number(pid)))
        missingIds.push({ key: r.key, invoice_id: invoiceId, answered_payment_id: pid, stored: ids });
    }
  }
  const violations: Violation[] = [];
  if (extra.length) {
    violations.push({
      message: `payments: ${extra.length} documents hold more payments than their keys answered 2xx (a payment took effect twice, or a refused one took effect)`,
      evidence: examples(extra),
    });
  }
  if (lost.length)
    violations.push({ message: `payments: ${lost.length} documents hold fewer payments than keys answered 2xx`, evidence: examples(lost) });
  if (entryMismatch.length)
    violations.push({
      message: `payments: ${entryMismatch.length} documents whose payment journal entries differ from their payments`,
      evidence: examples(entryMismatch),
    });
  if (missingIds.length)
    violations.push({
      message: `payments: ${missingIds.length} answered payment ids not stored on their document`,
      evidence: examples(missingIds),
    });
  return { violations, line: `payments ${ok}/${recs.length} ok on ${perInvoice.size} documents` };
}

/** Validations: a 2xx left the document posted once; a refusal left it unposted (unless another key posted it). */
async function checkValidations(pool: pg.Pool, writes: WriteRecord[], who: Who): Promise<{ violations: Violation[]; line: string }> {
  const recs = byOp(writes, OPS.invoiceValidate);
  const ids = [...new Set(recs.map((r) => Number(r.tags['invoiceId'])))];
  const rows = await queryEventually<{ id: number; invoicestatus: string; entries: string }>(
    pool,
    `select i.id, i.invoicestatus, (select count(*) from invoicing.journal_entries j where j.invoice_id = i.id and j.kind = 'invoice') as entries
       from invoicing.invoices i where i.id = any($1)`,
    [ids],
  );
  const inv = new Map(rows.map((r) => [Number(r.id), r]));
  const notPosted: unknown[] = [];
  const refusedButPosted: unknown[] = [];
  const doublePosted: unknown[] = [];
  for (const id of ids) {
    const row = inv.get(id);
    const list = recs.filter((r) => Number(r.tags['invoiceId']) === id);
    const s = list.map(settled);
    const posted = row !== undefined && ['open', 'paid'].includes(row.invoicestatus);
    if (row && Number(row.entries) > 1)
      doublePosted.push({ invoice_id: id, journal_entries: Number(row.entries), keys: list.map((r) => r.key) });
    if (s.some((x) => x.outcome === 'ok') && !posted)
      notPosted.push({ invoice_id: id, status: row?.invoicestatus, keys: list.map((r) => r.key) });
    if (posted && !s.some((x) => x.outcome !== 'refused')) {
      refusedButPosted.push({
        invoice_id: id,
        status: row?.invoicestatus,
        keys: list.map((r, i) => ({ ...who(r), code: s[i]?.code, message: textOf(field(s[i]?.reply, 'message'))?.slice(0, 120) })),
      });
    }
  }
  const violations: Violation[] = [];
  if (doublePosted.length)
    violations.push({
      message: `validate: ${doublePosted.length} documents posted more than one journal entry`,
      evidence: examples(doublePosted),
    });
  if (notPosted.length)
    violations.push({
      message: `validate: ${notPosted.length} documents answered validated but are not posted`,
      evidence: examples(notPosted),
    });
  if (refusedButPosted.length)
    violations.push({
      message: `validate: ${refusedButPosted.length} documents posted although every validation key was refused`,
      evidence: examples(refusedButPosted),
    });
  return { violations, line: `validations ${recs.filter((r) => settled(r).outcome === 'ok').length}/${recs.length} ok` };
}

/** Conversions and cancels: the quotation ends as the 2xx answer said, and a refusal changed nothing. */
async function checkQuotationMoves(pool: pg.Pool, writes: WriteRecord[], who: Who): Promise<{ violations: Violation[]; line: string }> {
  const converts = byOp(writes, OPS.quotationConvert);
  const cancels = byOp(writes, OPS.quotationCancel);
  const ids = [...new Set([...converts, ...cancels].map((r) => Number(r.tags['quotationId'])))];
  const rows = await queryEventually<{ id: number; status: string; invoice_id: number | null }>(
    pool,
    `select id, status, invoice_id from sales.quotations where id = any($1)`,
    [ids],
  );
  const q = new Map(rows.map((r) => [Number(r.id), r]));
  const bad: Violation[] = [];
  const wrong: unknown[] = [];
  const refusedButDone: unknown[] = [];
  // A refusal "took effect" only if no other key for that quotation did it (a client may give up on one key and convert again under another).
  const doneByAnother = (list: WriteRecord[], rec: WriteRecord) =>
    list.some((o) => o !== rec && Number(o.tags['quotationId']) === Number(rec.tags['quotationId']) && settled(o).outcome !== 'refused');
  for (const rec of converts) {
    const row = q.get(Number(rec.tags['quotationId']));
    const s = settled(rec);
    const answered = field(s.reply, 'invoice', 'id');
    if (s.outcome === 'ok' && (row?.status !== 'converted' || Number(row.invoice_id) !== Number(answered))) {
      wrong.push({
        ...who(rec),
        quotation_id: rec.tags['quotationId'],
        status: row?.status,
        invoice_id: row?.invoice_id,
        answered_invoice_id: answered,
      });
    }
    if (s.outcome === 'refused' && row?.status === 'converted' && !doneByAnother(converts, rec)) {
      refusedButDone.push({ ...who(rec), quotation_id: rec.tags['quotationId'], code: s.code, invoice_id: row.invoice_id });
    }
  }
  for (const rec of cancels) {
    const row = q.get(Number(rec.tags['quotationId']));
    const s = settled(rec);
    if (s.outcome === 'ok' && row?.status !== 'cancelled')
      wrong.push({ ...who(rec), quotation_id: rec.tags['quotationId'], status: row?.status, expected: 'cancelled' });
    if (s.outcome === 'refused' && row?.status === 'cancelled' && !doneByAnother(cancels, rec))
      refusedButDone.push({ ...who(rec), quotation_id: rec.tags['quotationId'], code: s.code });
  }
  if (wrong.length)
    bad.push({
      message: `quotations: ${wrong.length} convert/cancel answered 2xx but the quotation does not show it`,
      evidence: examples(wrong),
    });
  if (refusedButDone.length)
    bad.push({
      message: `quotations: ${refusedButDone.length} convert/cancel answered a refusal but took effect`,
      evidence: examples(refusedButDone),
    });
  return { violations: bad, line: `conversions ${converts.length}, cancels ${cancels.length}` };
}

/** Partner edits: the partner ends with the last 2xx edit's value (or a later unsettled one), never an older or a refused one. */
async function checkPartnerEdits(pool: pg.Pool, writes: WriteRecord[]): Promise<{ violations: Violation[]; line: string }> {
  const recs = byOp(writes, OPS.partnerEdit);
  const ids = [...new Set(recs.map((r) => Number(r.tags['partnerId'])))];
  const rows = await queryEventually<{ id: number; phone: string | null }>(
    pool,
    `select id, phone from partners.partners where id = any($1)`,
    [ids],
  );
  const phone = new Map(rows.map((r) => [Number(r.id), r.phone]));
  const wrong: unknown[] = [];
  for (const id of ids) {
    const list = recs.filter((r) => Number(r.tags['partnerId']) === id).sort((a, b) => a.seq - b.seq);
    const s = list.map(settled);
    const lastOk = s.map((x) => x.outcome).lastIndexOf('ok');
    if (lastOk < 0) continue;
    const allowed = list
      .slice(lastOk)
      .filter((_, i) => s[lastOk + i]?.outcome !== 'refused')
      .map((r) => r.body['phone']);
    if (!allowed.includes(phone.get(id))) {
      wrong.push({
        partner_id: id,
        phone: phone.get(id),
        expected_one_of: allowed,
        edits: list.map((r, i) => `${r.key}:${s[i]?.outcome}`),
      });
    }
  }
  const violations = wrong.length
    ? [{ message: `partner edits: ${wrong.length} partners do not hold their last successful edit`, evidence: examples(wrong) }]
    : [];
  return { violations, line: `partner edits ${recs.length}` };
}

/**
 * Every write the client saw succeed is present exactly once, and nothing a refusal answered took
 * effect: create-like writes by the key each record carries, payments counted per document against
 * the distinct keys that paid it, validations, conversions, cancels and edits by the state they leave.
 */
export const writesCheck: Check = {
  name: 'writes',
  title: 'every 2xx write present exactly once; no refused write took effect',
  async run(ctx) {
    const writes = ctx.client.writes;
    const who = whoWith(ctx.faults);
    const parts = [
      ...(await Promise.all(MARKERS.map((m) => checkMarker(ctx.pool, m, writes, who)))),
      await checkPayments(ctx.pool, writes, who),
      await checkValidations(ctx.pool, writes, who),
      await checkQuotationMoves(ctx.pool, writes, who),
      await checkPartnerEdits(ctx.pool, writes),
    ];
    return { summary: parts.map((p) => p.line).join('; '), violations: parts.flatMap((p) => p.violations) };
  },
};
