import type { EventDataOf, invoicing } from '@bo/contracts';
import type { ReceivedInvoice } from '@bo/documents';
import type { Knex, OneStatementWrite } from '@bo/runtime';
import type { NewInvoiceDrawn, NewInvoicePlan } from '../invoice/decide-new-invoice';
import type { InvoiceRow, LineRow } from '../invoice/invoice.record';
import { newInvoiceDraws, newInvoiceDrawn, newInvoicePartsAlone } from '../invoice/invoice.repository';

type InboundRecord = invoicing.InboundRecord;

/** A row of `inbound_documents` (migration 035). */
export interface InboundRow {
  id: number;
  org_id: number;
  status: InboundRecord['status'];
  syntax: InboundRecord['syntax'];
  original: Buffer;
  sha256: string;
  content_type: string;
  filename: string | null;
  supplier_key: string | null;
  partner_id: number | null;
  invoice_number: string | null;
  issue_date: string | null;
  summary: InboundSummary;
  validation: InboundRecord['validation'];
  review_reasons: string[];
  /** What the bill carries as the document states it beyond its own calculation (migration 057). */
  notes: string[];
  rejection_reason: string | null;
  invoice_id: number | null;
  received_at: Date;
}

/** What the reply shows of the reading, kept as read. */
export interface InboundSummary {
  customization_id: string | null;
  /** What paying the bill needs (absent on imports stored before it was kept). */
  payment?: InboundRecord['payment'];
  currency: string | null;
  seller: { name: string | null; vat_id: string | null; endpoint_id: string | null };
  totals: InboundRecord['totals'];
}

/** Every column but the original's bytes, which only `get` with `format: "original"` reads. */
const COLUMNS = [
  'id',
  'org_id',
  'status',
  'syntax',
  'sha256',
  'content_type',
  'filename',
  'supplier_key',
  'partner_id',
  'invoice_number',
  'summary',
  'validation',
  'review_reasons',
  'notes',
  'rejection_reason',
  'invoice_id',
  'received_at',
];
/** The issue date as its text, never through a JavaScript Date and a time zone. */
export const columns = (db: Knex) => [...COLUMNS, db.raw(`to_char(issue_date, 'YYYY-MM-DD') as issue_date`)];

export async function inboundBySha(db: Knex, orgId: number, sha256: string): Promise<InboundRow | undefined> {
  return (await db('inbound_documents').select(columns(db)).where({ org_id: orgId, sha256 }).first()) as InboundRow | undefined;
}

export async function inboundById(db: Knex, orgId: number, id: number, opts: { original?: boolean; lock?: boolean } = {}) {
  const q = db('inbound_documents')
    .select(opts.original ? [...columns(db), 'original'] : columns(db))
    .where({ org_id: orgId, id });
  if (opts.lock) void q.forUpdate();
  return (await q.first()) as InboundRow | undefined;
}

/** An import as a change decided on an unlocked read sees it: the row, and its xmin as read. */
export interface InboundAsRead {
  row: InboundRow;
  /** The row's xmin as read, for a change stored only while it is still that row. */
  read: string;
}

/** One import of the organization with its xmin, read with no lock; undefined when it has none of that id. */
export async function readInboundAsRead(db: Knex, orgId: number, id: number): Promise<InboundAsRead | undefined> {
  const found = (await db('inbound_documents')
    .select([...columns(db), db.raw('xmin::text as read_version')])
    .where({ org_id: orgId, id })
    .first()) as (InboundRow & { read_version: string }) | undefined;
  if (!found) return undefined;
  const { read_version: read, ...row } = found;
  return { row, read };
}

/**
 * markRejected of an import read (readInboundAsRead) as one statement (one-statement.ts), only while
 * it is still the row read; else nothing.
 */
export function rejectionAlone(
  rejected: Pick<InboundRow, 'id' | 'org_id' | 'rejection_reason'>,
  read: string,
): Pick<OneStatementWrite, 'parts' | 'expects'> {
  return {
    parts: [
      {
        sql: `update inbound_documents set status = 'rejected', rejection_reason = ?::text, supplier_key = null, updated_at = now()
               where org_id = ? and id = ? and xmin::text = ? returning id`,
        bindings: [rejected.rejection_reason, rejected.org_id, rejected.id, read],
      },
    ],
    expects: '(select count(*) from store1) = 1',
  };
}

/** The columns of a new import: an `inbound_documents` row without its id, its clock and a rejection (which comes later). */
export type NewInbound = Omit<InboundRow, 'id' | 'rejection_reason' | 'received_at'>;

/** Stores a new import; its row as `inboundById` reads it. The unique indexes (bytes, supplier's number) may refuse it. */
export async function insertInbound(db: Knex, row: NewInbound): Promise<InboundRow> {
  const [made] = await db('inbound_documents')
    .insert({
      ...row,
      summary: JSON.stringify(row.summary),
      validation: JSON.stringify(row.validation),
      review_reasons: JSON.stringify(row.review_reasons),
      notes: JSON.stringify(row.notes),
    })
    .returning<Array<{ id: number }>>('id');
  return (await inboundById(db, row.org_id, made!.id))!;
}

/** Imports of the organization newest first, filtered by status, supplier and the day they were received. */
export function inboundFiltered(
  db: Knex,
  orgId: number,
  f: { status?: InboundRecord['status']; partner?: number; date_from?: string; date_to?: string },
) {
  const q = db('inbound_documents').where({ org_id: orgId });
  if (f.status !== undefined) void q.where({ status: f.status });
  if (f.partner !== undefined) void q.where({ partner_id: f.partner });
  if (f.date_from !== undefined) void q.where('received_at', '>=', `${f.date_from}T00:00:00Z`);
  if (f.date_to !== undefined) void q.whereRaw(`received_at < (?::date + 1)::timestamptz`, [f.date_to]);
  return q.select(columns(db));
}

/** The import closed by hand: its reason kept, its supplier key given up. */
export async function markRejected(db: Knex, id: number, reason: string): Promise<void> {
  await db('inbound_documents')
    .where({ id })
    .update({ status: 'rejected', rejection_reason: reason, supplier_key: null, updated_at: db.fn.now() });
}

export async function inboundDuplicate(db: Knex, orgId: number, supplierKey: string, number: string, issueDate: string) {
  return (await db('inbound_documents')
    .select(columns(db))
    .where({ org_id: orgId, supplier_key: supplierKey, invoice_number: number, issue_date: issueDate })
    .first()) as InboundRow | undefined;
}

const NO_PAYMENT: InboundRecord['payment'] = {
  due_date: null,
  terms: null,
  means_code: null,
  iban: null,
  bic: null,
  account_name: null,
  reference: null,
};

/** What the document says about paying it (BT-9, BT-20, BG-16), kept with the import beside its bill. */
export function paymentOf(invoice: ReceivedInvoice): InboundRecord['payment'] {
  const p = invoice.payment;
  return {
    due_date: invoice.due_date ?? null,
    terms: invoice.payment_terms ?? null,
    means_code: p.means_code ?? null,
    iban: p.iban ?? null,
    bic: p.bic ?? null,
    account_name: p.account_name ?? null,
    reference: p.reference ?? null,
  };
}

const day = (d: string | Date | null): string | null =>
  d === null ? null : typeof d === 'string' ? d.slice(0, 10) : d.toISOString().slice(0, 10);

/** What every `invoicing.inbound.*` event tells of an import as stored (inboundEventData). */
export function inboundEventOf(row: InboundRow): EventDataOf<typeof invoicing.inboundReceived> {
  return {
    inbound_id: row.id,
    status: row.status,
    syntax: row.syntax,
    invoice_number: row.invoice_number,
    issue_date: row.issue_date,
    partner_id: row.partner_id,
    invoice_id: row.invoice_id,
    sha256: row.sha256.trim(),
  };
}

export function toInboundRecord(row: InboundRow): InboundRecord {
  return {
    id: row.id,
    status: row.status,
    syntax: row.syntax,
    customization_id: row.summary.customization_id,
    invoice_number: row.invoice_number,
    issue_date: day(row.issue_date),
    currency: row.summary.currency,
    seller: { ...row.summary.seller, partner_id: row.partner_id },
    totals: row.summary.totals,
    payment: row.summary.payment ?? NO_PAYMENT,
    validation: row.validation,
    invoice_id: row.invoice_id,
    sha256: row.sha256.trim(),
    review_reasons: row.review_reasons,
    notes: row.notes,
    filename: row.filename,
    rejection_reason: row.rejection_reason,
    // The clock's date-time as the other records show it (UTC, to the second).
    received_at: new Date(row.received_at).toISOString().slice(0, 19),
  };
}

/** Whether an unknown supplier is created as a vendor (`inbound_create_partners`); false until set. */
export async function createsPartners(db: Knex, orgId: number): Promise<boolean> {
  const row = (await db('inbound_settings').select('create_partners').where({ org_id: orgId }).first()) as
    { create_partners: boolean } | undefined;
  return row?.create_partners ?? false;
}

/** Sets whether an unknown supplier is created as a vendor. */
export async function storeInboundSettings(db: Knex, orgId: number, createPartners: boolean): Promise<void> {
  await db('inbound_settings')
    .insert({ org_id: orgId, create_partners: createPartners })
    .onConflict('org_id')
    .merge({ create_partners: createPartners, updated_at: db.fn.now() });
}

/**
 * A settings request as one statement (one-statement.ts): the change written (storeInboundSettings),
 * or with none only read; `inbound_create_partners` in the reply filled in with the setting as the
 * statement leaves it (false until set).
 */
export function inboundSettingsAlone(
  orgId: number,
  change: { createPartners: boolean | undefined },
): Pick<OneStatementWrite, 'parts' | 'fills'> {
  const part =
    change.createPartners === undefined
      ? { sql: 'select create_partners from inbound_settings where org_id = ?', bindings: [orgId] }
      : {
          sql: `insert into inbound_settings (org_id, create_partners) values (?, ?::boolean)
                on conflict (org_id) do update set create_partners = excluded.create_partners, updated_at = now()
                returning create_partners`,
          bindings: [orgId, change.createPartners],
        };
  return {
    parts: [part],
    fills: [{ key: 'inbound_create_partners', sql: '(select coalesce((select create_partners from store1), false)::text)' }],
  };
}

/** Teaches the supplier's product mapping: each key (seller item id, GTIN) names the product chosen for it. */
export async function rememberProductMapping(
  db: Knex,
  orgId: number,
  partnerId: number,
  mapping: ReadonlyArray<{ key: string; product: number }>,
): Promise<void> {
  if (!mapping.length) return;
  await db('inbound_product_map')
    .insert(mapping.map((m) => ({ org_id: orgId, partner_id: partnerId, product_key: m.key, product_id: m.product })))
    .onConflict(['org_id', 'partner_id', 'product_key'])
    .merge(['product_id']);
}

/**
 * What an accept decides on, read with no lock in one statement: the import with its xmin as read,
 * and the ids and time its bill of `lines` lines takes (newInvoiceDraws); undefined when the
 * organization has no import of that id.
 */
export async function readAcceptance(
  db: Knex,
  orgId: number,
  id: number,
  lines: number,
): Promise<(InboundAsRead & { drawn: NewInvoiceDrawn }) | undefined> {
  const draws = newInvoiceDraws(lines);
  const { rows } = await db.raw<{ rows: Array<InboundRow & { read_version: string; drawn: unknown }> }>(
    `select ${COLUMNS.join(', ')}, to_char(issue_date, 'YYYY-MM-DD') as issue_date, xmin::text as read_version, ${draws.sql} as drawn
       from inbound_documents where org_id = ? and id = ?`,
    [...draws.bindings, orgId, id],
  );
  const found = rows[0];
  if (!found) return undefined;
  const { read_version: read, drawn, ...row } = found;
  return { row, read, drawn: newInvoiceDrawn(drawn) };
}

/**
 * An accept decided on an unlocked read (readAcceptance) as one statement (one-statement.ts): the
 * bill as a create stores it (newInvoicePartsAlone: the supplier's delete fence checked, the number
 * taken), then, once it was written, the reviewer's products kept in the supplier's mapping and the
 * import closed, only while it is still the row read. `expects` holds when all of it was written;
 * otherwise nothing stays and the usual way decides under the import's lock.
 */
export function acceptanceAlone(
  plan: NewInvoicePlan,
  bill: { row: InvoiceRow; lines: readonly LineRow[] },
  accepted: { inbound: InboundRow; read: string; mapping: ReadonlyArray<{ key: string; product: number }> },
): Pick<OneStatementWrite, 'parts' | 'expects' | 'fills'> {
  const { inbound } = accepted;
  const made = newInvoicePartsAlone(plan, bill, inbound.partner_id);
  const parts = [...made.parts];
  if (accepted.mapping.length)
    parts.push({
      sql: `insert into inbound_product_map (org_id, partner_id, product_key, product_id)
            select ?::int, ?::int, m.key, m.product from ${made.inserted}, unnest(?::text[], ?::int[]) as m(key, product)
            on conflict (org_id, partner_id, product_key) do update set product_id = excluded.product_id`,
      bindings: [inbound.org_id, inbound.partner_id, accepted.mapping.map((m) => m.key), accepted.mapping.map((m) => m.product)],
    });
  parts.push({
    sql: `update inbound_documents d set status = ?, partner_id = ?::int, invoice_id = ?::int, review_reasons = ?::jsonb, notes = ?::jsonb,
                 updated_at = now()
            from ${made.inserted}
           where d.org_id = ? and d.id = ? and d.xmin::text = ? returning d.id`,
    bindings: [
      inbound.status,
      inbound.partner_id,
      inbound.invoice_id,
      JSON.stringify(inbound.review_reasons),
      JSON.stringify(inbound.notes),
      inbound.org_id,
      inbound.id,
      accepted.read,
    ],
  });
  return {
    parts,
    expects: `${made.expects} and (select count(*) from store${parts.length}) = 1`,
    ...(made.fills ? { fills: made.fills } : {}),
  };
}

/** The import made its bill: its supplier, bill and notes named, nothing left to review. */
export async function markBillCreated(db: Knex, id: number, partnerId: number, invoiceId: number, notes: readonly string[]): Promise<void> {
  await db('inbound_documents')
    .where({ id })
    .update({
      status: 'bill_created',
      partner_id: partnerId,
      invoice_id: invoiceId,
      review_reasons: '[]',
      notes: JSON.stringify(notes),
      updated_at: db.fn.now(),
    });
}
