import { nowIn } from '@bo/billing';
import {
  likeContains,
  selectPage,
  type ClaimedRows,
  type ClaimRead,
  type Knex,
  type OneStatementWrite,
  type PageRequest,
  type StorePart,
} from '@bo/runtime';
import { quotationRefusals } from './quotation-refusals';
import type { QuotationStatus } from './quotation-status';
import { CONVERTIBLE } from './quotation-rules';
import type { LineRow, ListRow, QuotationRow } from './quotation.record';

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

/** Writes `changes` to the quotation and answers it as it now is. */
export async function updateQuotation(db: Knex, id: number, changes: Partial<QuotationRow>): Promise<QuotationRow> {
  const [row] = (await db('quotations')
    .where({ id })
    .update({ ...changes, updated_at: db.fn.now() })
    .returning('*')) as QuotationRow[];
  return row as QuotationRow;
}

/** A new quotation, as stored (a clash on its number throws the unique violation for the caller to name). */
export async function insertQuotation(db: Knex, row: Record<string, unknown>): Promise<QuotationRow> {
  const [stored] = (await db('quotations').insert(row).returning('*')) as QuotationRow[];
  return stored as QuotationRow;
}

/** Lines of a quotation, as stored, in the order given. */
export async function insertLines(db: Knex, rows: readonly Record<string, unknown>[]): Promise<LineRow[]> {
  return rows.length ? ((await db('quotation_lines').insert(rows).returning('*')) as LineRow[]) : [];
}

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
