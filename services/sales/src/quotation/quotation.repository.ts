import { nowIn, taxPolicyOf, todayOf, type OrganizationSettings } from '@bo/billing';
import {
  exactJson,
  isUniqueViolation,
  likeContains,
  nextNumberSteps,
  numberDocument,
  numberedRows,
  pendingNumber,
  selectPage,
  storeAt,
  type ClaimedRows,
  type ClaimRead,
  type Knex,
  type OneStatementWrite,
  type PageRequest,
  type StorePart,
} from '@bo/runtime';
import { quotationRefusals } from './quotation-refusals';
import type { QuotationStatus } from './quotation-status';
import { CONVERTIBLE, type QuotationState } from './quotation-rules';
import type { LineRow, ListRow, QuotationRow } from './quotation.record';
import type { LineAmountsChange } from './taxes';
import type { LineAdded } from './decide-add-line';
import type { QuotationEdit } from './decide-edit-quotation';
import type { NewQuotation, NewQuotationDrawn } from './decide-create-quotation';

/** A quotation of the organization, optionally locked for update; another org's quotation is not found. */
export async function findQuotation(db: Knex, orgId: number, id: number, opts: { lock?: boolean } = {}): Promise<QuotationRow> {
  const query = db<QuotationRow>('quotations').where({ org_id: orgId, id }).first();
  const row = await (opts.lock ? query.forUpdate() : query);
  if (!row) throw quotationRefusals.quotationNotFound(id);
  return row;
}

/**
 * findQuotation locked, with today in the organization's time zone, in one statement (a conversion's
 * claim decides on both). The zone is read in the statement's snapshot, taken before any wait for
 * the lock: a change of zone committed meanwhile counts from the next request.
 */
export async function lockQuotationWithToday(trx: Knex, orgId: number, id: number): Promise<Omit<QuotationAsRead, 'read'>> {
  const { quotation, today, leaseLive } = await quotationWithToday(trx, orgId, id, 'for update of q');
  return { quotation, today, leaseLive };
}

/**
 * The same with no lock, and the row's xmin as read (`read`), for an optimistic claim that changes
 * the quotation only while it is still that row (conversion.ts claimAttempt).
 */
export async function readQuotationWithToday(db: Knex, orgId: number, id: number): Promise<QuotationAsRead> {
  return quotationWithToday(db, orgId, id, '');
}

/** What readQuotationWithToday reads, as a select a key's claim may run for it (GatherApply.readWithClaim). */
export function quotationWithTodayRead(orgId: number, id: number, lock = ''): ClaimRead {
  return {
    sql: `select q.*, q.xmin::text as read_version, coalesce(q.conversion_lease_until > now(), false) as lease_live,
              (select s.time_zone from organization_settings s where s.org_id = q.org_id) as organization_time_zone
       from quotations q where q.org_id = ? and q.id = ? ${lock}`,
    bindings: [orgId, id],
  };
}

/** The quotation of quotationWithTodayRead's rows; another org's, or none, is not found. */
export function quotationAsRead(rows: ClaimedRows, id: number): QuotationAsRead {
  const found = rows[0] as
    (QuotationRow & { organization_time_zone: string | null; read_version: string; lease_live: boolean }) | undefined;
  if (!found) throw quotationRefusals.quotationNotFound(id);
  const { organization_time_zone: zone, read_version: read, lease_live: leaseLive, ...quotation } = found;
  return { quotation, today: nowIn(zone).date, read, leaseLive };
}

interface QuotationAsRead {
  quotation: QuotationRow;
  today: string;
  /** The row's xmin as read. */
  read: string;
  /** A conversion's lease on it is still running, by the database's clock. */
  leaseLive: boolean;
}

async function quotationWithToday(db: Knex, orgId: number, id: number, lock: string): Promise<QuotationAsRead> {
  const { sql, bindings } = quotationWithTodayRead(orgId, id, lock);
  const { rows } = await db.raw<{ rows: ClaimedRows }>(sql, bindings);
  return quotationAsRead(rows, id);
}

/** What a change of a quotation loads besides its row: its lines, and the id a line it adds takes. */
export interface QuotationLoadOptions {
  lines: boolean;
  /** Draws the id of a line the change adds (`lineId`), from the lines' sequence. */
  drawLineId?: boolean;
}

/** A quotation as loadQuotation read it: the state a change decides on, the row's xmin as read, and a drawn line id. */
export interface QuotationLoaded extends QuotationState {
  /** The row's xmin as read: a store decided on this read writes only while the row is still that one. */
  read: string;
  /** The id drawn for a line the change adds (QuotationLoadOptions.drawLineId); else 0. */
  lineId: number;
}

type LoadedRow = QuotationRow & {
  read_version: string;
  settings: OrganizationSettings | null;
  loaded_lines: LineRow[] | null;
  line_id: number | null;
};

/**
 * The select of a change's load (loadQuotation): the quotation, its xmin, the organization's settings
 * row, and, as asked, its lines in id order (exact JSON: numerics as their text) and a drawn line id.
 */
function quotationLoad(orgId: number, id: number, opts: QuotationLoadOptions): { sql: string; bindings: Knex.RawBinding[] } {
  const lines = `coalesce((select jsonb_agg(${exactJson('l', ['id', 'org_id', 'quotation_id'])} order by l.id)
                            from quotation_lines l where l.quotation_id = q.id), '[]')`;
  return {
    sql: `select q.*, q.xmin::text as read_version,
                 (select ${exactJson('s', ['org_id', 'version'])} from organization_settings s where s.org_id = q.org_id) as settings,
                 ${opts.lines ? lines : 'null'} as loaded_lines,
                 ${opts.drawLineId ? `nextval(pg_get_serial_sequence('quotation_lines', 'id'))::int` : 'null::int'} as line_id
            from quotations q where q.org_id = ? and q.id = ?`,
    bindings: [orgId, id],
  };
}

function loadedOf(rows: readonly LoadedRow[], id: number): QuotationLoaded {
  const found = rows[0];
  if (!found) throw quotationRefusals.quotationNotFound(id);
  const { read_version: read, settings, loaded_lines: lines, line_id: lineId, ...quotation } = found;
  const row = settings ?? undefined;
  return { quotation, lines: lines ?? undefined, policy: taxPolicyOf(row), today: todayOf(row), read, lineId: lineId ?? 0 };
}

/**
 * Everything a change of a quotation decides on, in one statement with no lock (a handler's `alone`):
 * what it stores then holds only while the quotation is still the row read (`read`), since every
 * change of a quotation, of its lines, and a conversion's freeze update its row. Another
 * organization's quotation, or none, is not found.
 */
export async function loadQuotation(db: Knex, orgId: number, id: number, opts: QuotationLoadOptions): Promise<QuotationLoaded> {
  const { sql, bindings } = quotationLoad(orgId, id, opts);
  const { rows } = await db.raw<{ rows: LoadedRow[] }>(sql, bindings);
  return loadedOf(rows, id);
}

/**
 * The same under the quotation's row lock, in the caller's transaction (a handler's `apply`): the
 * lock goes out first and the load right behind it, so the load's snapshot is taken once the lock is
 * held and sees every change committed before it (its lines too).
 */
export async function lockAndLoadQuotation(
  trx: Knex.Transaction,
  orgId: number,
  id: number,
  opts: QuotationLoadOptions,
): Promise<QuotationLoaded> {
  const lock = trx.raw('select 1 from quotations where org_id = ? and id = ? for update', [orgId, id]);
  const { sql, bindings } = quotationLoad(orgId, id, opts);
  const load = trx.raw<{ rows: LoadedRow[] }>(sql, bindings);
  // The lock's failure is the one to answer (a twin holding the operation key fails the statements
  // that went out with BEGIN): the load behind it fails only because the transaction is aborted.
  const [locked, loaded] = await Promise.allSettled([lock, load]);
  if (locked.status === 'rejected') throw locked.reason;
  if (loaded.status === 'rejected') throw loaded.reason;
  return loadedOf(loaded.value.rows, id);
}

export async function linesOf(db: Knex, quotationId: number): Promise<LineRow[]> {
  return db<LineRow>('quotation_lines').where({ quotation_id: quotationId }).orderBy('id');
}

/** SQL for the status a reader sees (one binding: today): draft and sent quotations past valid_until read as expired. */
export const EFFECTIVE_STATUS_SQL = `(case when q.status in ('draft','sent') and q.valid_until < ?::date then 'expired' else q.status end)`;

/** Marks the quotation cancelled by `actor`. */
export async function markCancelled(db: Knex, id: number, actor: string | null): Promise<void> {
  const { sql, bindings } = cancellation(id, actor);
  await db.raw(sql, bindings);
}

/**
 * The cancel's update; with `read` (the row's xmin as an unlocked read saw it), only while it is
 * still that row, answering its id: every change of a quotation, a conversion's freeze included,
 * updates its row.
 */
function cancellation(id: number, actor: string | null, read?: string): StorePart {
  return {
    sql: `update quotations set status = 'cancelled', cancelled_at = now(), updated_by = ?, updated_at = now()
           where id = ?${read === undefined ? '' : ' and xmin::text = ? returning id'}`,
    bindings: [actor, id, ...(read === undefined ? [] : [read])],
  };
}

/** The cancel as one statement (a handler's `alone`): written only while the quotation is the row read, else nothing. */
export function cancellationAlone(id: number, actor: string | null, read: string): Pick<OneStatementWrite, 'parts' | 'expects'> {
  return { parts: [cancellation(id, actor, read)], expects: '(select count(*) from store1) = 1' };
}

/** A column's name quoted as an identifier (names come from the code's own row types). */
function quoted(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * The update of a change of the quotation: `columns` as its row holds them (JSON populated into the
 * table's row type, so the statement's text depends only on which columns are given) and the time of
 * the change, answering its id. With `read` (the row's xmin as an unlocked read saw it), only while
 * it is still that row.
 */
function quotationUpdate(id: number, columns: Partial<QuotationRow>, read?: string): StorePart {
  const names = Object.keys(columns).map(quoted);
  return {
    sql: `update quotations q set ${names.map((c) => `${c} = r.${c}`).join(', ')}, updated_at = now()
            from jsonb_populate_record(null::quotations, ?::jsonb) r
           where q.id = ?${read === undefined ? '' : ' and q.xmin::text = ?'}
          returning q.id`,
    bindings: [JSON.stringify(columns), id, ...(read === undefined ? [] : [read])],
  };
}

/** The name of a store's first part, the quotation's update or insert, which its other parts read: they write only when it did. */
const QUOTATION_PART = 'store1';

/** Lines inserted as their rows give every column (their ids drawn), after the quotation's part (`after`). */
function linesInsert(lines: readonly LineRow[], after = QUOTATION_PART): StorePart[] {
  if (!lines.length) return [];
  const names = Object.keys(lines[0] as LineRow).map(quoted);
  return [
    {
      sql: `insert into quotation_lines (${names.join(', ')})
            select ${names.map((c) => `l.${c}`).join(', ')}
              from ${after}, jsonb_populate_recordset(null::quotation_lines, ?::jsonb) with ordinality as l
             order by l.ordinality`,
      bindings: [JSON.stringify(lines)],
    },
  ];
}

/** The stored lines whose amounts the computed quotation moved, after the quotation's part. */
function lineAmountsUpdate(quotationId: number, changed: readonly LineAmountsChange[]): StorePart[] {
  if (!changed.length) return [];
  return [
    {
      sql: `update quotation_lines l set tax_category = v.tax_category, subtotal = v.subtotal, tax_amount = v.tax_amount, total = v.total
              from ${QUOTATION_PART}, jsonb_populate_recordset(null::quotation_lines, ?::jsonb) v
             where l.quotation_id = ? and l.id = v.id`,
      bindings: [JSON.stringify(changed), quotationId],
    },
  ];
}

/** A logo frozen with a quotation's parties, kept once per organization and content, after the quotation's part. */
function logoInsert(orgId: number, logo: FrozenLogo | null, after = QUOTATION_PART): StorePart[] {
  if (!logo) return [];
  return [
    {
      sql: `insert into document_logos (org_id, sha256, png) select ?::int, ?::text, ?::bytea from ${after}
            on conflict (org_id, sha256) do nothing`,
      bindings: [orgId, logo.sha256, logo.png],
    },
  ];
}

/** A logo as partiesToStore gives it: its content address and its bytes. */
interface FrozenLogo {
  sha256: string;
  png: Buffer;
}

/** What must hold of a change stored alone: the quotation's part wrote its row (it was still the row read). */
const QUOTATION_WRITTEN = `(select count(*) from ${QUOTATION_PART}) = 1`;

/**
 * A line added (decideAddLine) as one statement's parts: the quotation's totals, line count and
 * author, then the new line and the lines whose amounts moved. With `read`, written only while the
 * quotation is the row read.
 */
function lineAddedParts(added: LineAdded, read?: string): StorePart[] {
  return [
    quotationUpdate(added.quotationId, added.header, read),
    ...linesInsert([added.line]),
    ...lineAmountsUpdate(added.quotationId, added.changedLines),
  ];
}

/** A line added as one statement (a handler's `alone`): stored only while the quotation is the row read, else nothing. */
export function lineAddedAlone(added: LineAdded, read: string): Pick<OneStatementWrite, 'parts' | 'expects'> {
  return { parts: lineAddedParts(added, read), expects: QUOTATION_WRITTEN };
}

/** A line added, under the quotation's lock: stored by the statement that commits. */
export async function storeLineAdded(trx: Knex.Transaction, added: LineAdded): Promise<void> {
  await storeAt(trx, lineAddedParts(added), 'with commit');
}

/**
 * An edit (decideEditQuotation) as one statement's parts: the quotation's changed columns, then the
 * logo its frozen parties show and the lines whose amounts moved. With `read`, written only while
 * the quotation is the row read.
 */
function quotationEditParts(edit: QuotationEdit, read?: string): StorePart[] {
  return [
    quotationUpdate(edit.quotationId, edit.header, read),
    ...logoInsert(edit.orgId, edit.logo),
    ...lineAmountsUpdate(edit.quotationId, edit.changedLines),
  ];
}

/**
 * An edit as one statement (a handler's `alone`): stored only while the quotation is the row read,
 * else nothing; a number another quotation took meanwhile fails it whole (the unique index), and the
 * locked way answers it.
 */
export function quotationEditAlone(edit: QuotationEdit, read: string): Pick<OneStatementWrite, 'parts' | 'expects'> {
  return { parts: quotationEditParts(edit, read), expects: QUOTATION_WRITTEN };
}

/**
 * An edit, under the quotation's lock. A new number is stored at once, so that a clash with another
 * quotation's is answered as the duplicate it is; any other edit goes with the statement that commits.
 */
export async function storeQuotationEdit(trx: Knex.Transaction, edit: QuotationEdit): Promise<void> {
  const numbered = edit.header.quotation_number !== undefined;
  try {
    await storeAt(trx, quotationEditParts(edit), numbered ? 'at once' : 'with commit');
  } catch (err) {
    if (isUniqueViolation(err, UNIQUE_NUMBER)) throw quotationRefusals.quotationNumberTaken(edit.header.quotation_number);
    throw err;
  }
}

/**
 * SQL of a scalar the read of a new quotation's partner carries (readDocumentParty's `beside`): the
 * ids the quotation and its `lines` lines take, drawn from their sequences, and the time it is made,
 * for the create's store (decideCreateQuotation writes them, so its reply is built before it).
 */
export function newQuotationDraws(lines: number): { sql: string; bindings: Knex.RawBinding[] } {
  return {
    sql: `json_build_object('quotation_id', nextval(pg_get_serial_sequence('quotations', 'id')),
                            'line_ids', array(select nextval(pg_get_serial_sequence('quotation_lines', 'id')) from ${numberedRows('?::int')} order by n),
                            'now', now())`,
    bindings: [lines],
  };
}

/** What newQuotationDraws drew, as the read answered it. */
export function newQuotationDrawn(beside: unknown): NewQuotationDrawn {
  const drawn = beside as { quotation_id: number; line_ids: number[]; now: string };
  return { quotationId: drawn.quotation_id, lineIds: drawn.line_ids, now: new Date(drawn.now) };
}

/** The new quotation's insert under `number` (SQL of its text, with its bindings), answering its number; `where`: what it is written on. */
function quotationInsert(created: NewQuotation, number: SqlText, from = '', where = 'true'): StorePart {
  const { quotation_number: _number, ...row } = created.row;
  const names = Object.keys(row).map(quoted);
  return {
    sql: `insert into quotations (${names.join(', ')}, quotation_number)
          select ${names.map((c) => `r.${c}`).join(', ')}, n.number
            from jsonb_populate_record(null::quotations, ?::jsonb) r, (select ${number.sql} as number) n${from}
           where ${where} and n.number is not null
          returning quotation_number`,
    bindings: [JSON.stringify(row), ...number.bindings],
  };
}

type SqlText = { sql: string; bindings: Knex.RawBinding[] };

/**
 * The create's store as one statement (a handler's `alone`), its parts in order: the partner's delete
 * fence checked (partner_fenced takes its lock shared), a supplied number looked for, and with none
 * supplied the series advanced and its next number read (nextNumberSteps); then the quotation, only
 * when no fence stands and the number is free, and its lines and frozen logo after it. `expects`
 * holds when the quotation was written; otherwise (a fence, a number taken, by hand or meanwhile)
 * nothing stays and the runtime creates it the usual way, which answers what it finds. The number the
 * series took is filled in where the reply carries `quotation_number`.
 */
export function newQuotationAlone(created: NewQuotation): Pick<OneStatementWrite, 'parts' | 'expects' | 'fills'> {
  const orgId = created.row.org_id;
  const supplied = created.supplied ?? null;
  const parts: StorePart[] = [
    { sql: 'select partner_fenced(?::int, ?::int) as fenced', bindings: [orgId, created.row.partner_id] },
    {
      sql: 'select exists (select 1 from quotations where org_id = ? and quotation_number = ?::text) as taken',
      bindings: [orgId, supplied],
    },
  ];
  const free = 'not store1.fenced and not store2.taken';
  let number: SqlText = { sql: '?::text', bindings: [supplied] };
  if (supplied === null) {
    const steps = nextNumberSteps(orgId, created.series, NUMBERED, { from: `store1, store2 where ${free}` });
    parts.push(steps.advance, steps.candidate('store3'));
    number = { sql: '(select number from store4 where not taken)', bindings: [] };
  }
  const inserted = `store${parts.length + 1}`;
  parts.push(quotationInsert(created, number, ', store1, store2', free));
  parts.push(...linesInsert(created.lines, inserted), ...logoInsert(orgId, created.logo, inserted));
  return {
    parts,
    expects: `(select count(*) from ${inserted}) = 1`,
    ...(supplied === null
      ? { fills: [{ key: 'quotation_number', sql: `(select to_json(quotation_number)::text from ${inserted})` }] }
      : {}),
  };
}

/** Where quotation numbers are kept: the series' numbers are looked for there. */
const NUMBERED = { table: 'quotations', column: 'quotation_number' };

/**
 * The create, in the caller's transaction that checked the partner's fence: the quotation, its lines
 * and its frozen logo in one statement (under the supplied number, else a pending one), then numbered
 * (numberDocument: the series' counter stays locked until the commit, so it goes last). A supplied
 * number another quotation has is refused as the duplicate it is. Answers its number.
 */
export async function storeNewQuotation(trx: Knex.Transaction, created: NewQuotation): Promise<string> {
  const parts = [
    quotationInsert(created, { sql: '?::text', bindings: [created.supplied ?? pendingNumber()] }),
    ...linesInsert(created.lines),
    ...logoInsert(created.row.org_id, created.logo),
  ];
  try {
    await storeAt(trx, parts, 'at once');
  } catch (err) {
    if (created.supplied && isUniqueViolation(err, UNIQUE_NUMBER)) throw quotationRefusals.quotationNumberTaken(created.supplied);
    throw err;
  }
  if (created.supplied) return created.supplied;
  return numberDocument(trx, created.row.org_id, created.series, { ...NUMBERED, id: created.row.id });
}

/** The unique index of the organization's quotation numbers. */
const UNIQUE_NUMBER = 'quotations_org_number_unique';

export interface QuotationFilters {
  status?: QuotationStatus | undefined;
  quotation_type?: string | undefined;
  search_key?: string | undefined;
}

/**
 * A page of the organization's quotations, newest first, with the partner's names, and the total in
 * the same statement (pagination never disagrees with the rows). The status filter is the one
 * readers see, so expired quotations are found as expired only.
 */
export async function pageOfQuotations(db: Knex, orgId: number, filters: QuotationFilters, today: string, page: PageRequest) {
  const filtered = db('quotations as q')
    .leftJoin('partner_directory as p', (j) => j.on('p.org_id', 'q.org_id').andOn('p.id', 'q.partner_id'))
    .where('q.org_id', orgId)
    .modify((query) => {
      if (filters.status) query.whereRaw(`${EFFECTIVE_STATUS_SQL} = ?`, [today, filters.status]);
      if (filters.quotation_type) query.where('q.quotation_type', filters.quotation_type);
      const search = filters.search_key?.trim();
      if (search) {
        const pattern = likeContains(search);
        query.where((w) => {
          for (const column of ['q.quotation_number', 'p.partnername', 'p.display_name'])
            w.orWhereRaw(`?? ilike ? escape '\\'`, [column, pattern]);
        });
      }
    });
  return selectPage<ListRow>(filtered.select('q.*', 'p.partnername', 'p.display_name'), page, (p) => p.orderBy('q.id', 'desc'));
}

/**
 * The partner's open quotations (the first `listed`, by id) and how many there are: draft, sent or
 * accepted and not expired, or frozen by a conversion that has not ended.
 */
export async function openQuotationsOf(db: Knex, orgId: number, partnerId: number, today: string, listed: number) {
  const open = db('quotations as q')
    .where({ 'q.org_id': orgId, 'q.partner_id': partnerId })
    .whereIn('q.status', CONVERTIBLE)
    .where((w) => {
      void w.whereRaw(`${EFFECTIVE_STATUS_SQL} <> 'expired'`, [today]).orWhereNotNull('q.conversion_attempted_at');
    });
  const [rows, counted] = await Promise.all([
    open.clone().select('q.id', 'q.quotation_number', 'q.quotation_type', 'q.status').orderBy('q.id').limit(listed),
    open.clone().count<{ count: string }[]>({ count: '*' }),
  ]);
  return {
    rows: rows as Array<{ id: number; quotation_number: string; quotation_type: string; status: string }>,
    total: Number(counted[0]?.count ?? 0),
  };
}
