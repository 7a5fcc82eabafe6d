import type { partners } from '@bo/contracts';
import { storeWithCommit, type Knex, type OneStatementWrite, type StorePart } from '@bo/runtime';
import { weighBalances, type CurrencyBalanceRow, type WeighedBalance } from '../ledger/currency-balances';
import { loadPartnerBalances } from '../ledger/currency-balances.repository';
import type { NewPartnerRow } from './decide-create-partner';
import type { EditPartnerState, PartnerChanges, PartnerEdit } from './decide-edit-partner';
import { PROFILE_COLUMNS, type ProfileRow } from '../organization/profile.record';
import type { PartnerRow } from './partner.record';
import { partnerRefusals } from './partner-refusals';

/** A live partner of the organization, optionally locked for update; another org's partner is not found. */
export async function findLivePartner(db: Knex, orgId: number, partnerId: number, opts: { lock?: boolean } = {}): Promise<PartnerRow> {
  const query = db<PartnerRow>('partners').where({ org_id: orgId, id: partnerId }).whereNull('deleted_at').first();
  const row = await (opts.lock ? query.forUpdate() : query);
  if (!row) throw partnerRefusals.partnerNotFound(partnerId);
  return row;
}

/**
 * The partner's balances per currency and the organization's accounting currency, in one statement,
 * weighed in the partner's currency (weighBalances): the currency given, when an edit is about to set it.
 */
export async function weighedBalanceOf(db: Knex, row: Pick<PartnerRow, 'org_id' | 'id' | 'currency'>): Promise<WeighedBalance> {
  const [balances] = await loadPartnerBalances(db, [row.id]);
  return weighBalances(balances?.rows ?? [], row.currency, balances?.accounting ?? null);
}

/** The partner's balance in each currency, as it is (partner_balances). */
export function balancesOf(db: Knex, row: Pick<PartnerRow, 'org_id' | 'id'>) {
  return db('partner_balances')
    .where({ org_id: row.org_id, partner_id: row.id })
    .orderBy('currency')
    .select<Array<{ currency: string; balance: string }>>('currency', 'balance');
}

/** Inserts a new partner (decideCreatePartner's row) and answers it as stored. */
export async function insertPartner(trx: Knex, row: NewPartnerRow): Promise<PartnerRow> {
  const [stored] = await trx('partners').insert(row).returning<PartnerRow[]>('*');
  return stored as PartnerRow;
}

/** The balances per currency of the partner `p` of a statement, as CurrencyBalanceRow values in JSON (decimals as text). */
const CURRENCY_BALANCES_OF_P = `(select coalesce(json_agg(json_build_object(
      'currency', b.currency, 'balance', b.balance::text, 'receivable', b.receivable::text,
      'committed', b.committed::text, 'documents_total', b.documents_total::text,
      'documents_accounting', b.documents_accounting::text, 'booked_balance', b.booked_balance::text,
      'booked_receivable', b.booked_receivable::text, 'booked_face_balance', b.booked_face_balance::text,
      'booked_face_receivable', b.booked_face_receivable::text) order by b.currency), '[]')
   from partner_balances b where b.org_id = p.org_id and b.partner_id = p.id)`;

/** What a document asks of this service (documentParties), as stored. */
export interface DocumentPartiesState {
  profile: ProfileRow | undefined;
  partner: PartnerRow | undefined;
  /** The partner's balances per currency, when asked for and the partner is found. */
  balances: CurrencyBalanceRow[] | null;
}

/** The profile's columns under names of their own, beside the partner's (`p.*`). */
const PROFILE_AS = PROFILE_COLUMNS.map((c) => `o.${c} as "profile.${c}"`).join(', ');

/**
 * The organization's profile, the live partner and, when `withBalances`, its balances per currency,
 * in one statement: each is there or not on its own (an organization that never set its profile, a
 * partner of another organization or deleted).
 */
export async function loadDocumentParties(
  db: Knex,
  orgId: number,
  partnerId: number,
  withBalances: boolean,
): Promise<DocumentPartiesState> {
  const { rows } = await db.raw<{ rows: Array<Record<string, unknown>> }>(
    `select p.*, o.org_id is not null as "profile.found", ${PROFILE_AS},
            case when ?::boolean and p.id is not null then ${CURRENCY_BALANCES_OF_P} end as "partner.balances"
       from (select 1) one
       left join partners p on p.org_id = ? and p.id = ? and p.deleted_at is null
       left join organization_profiles o on o.org_id = ?`,
    [withBalances, orgId, partnerId, orgId],
  );
  const row = rows[0] ?? {};
  const partner: Record<string, unknown> = {};
  const profile: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(row)) {
    if (name.startsWith('profile.')) profile[name.slice('profile.'.length)] = value;
    else if (name !== 'partner.balances') partner[name] = value;
  }
  const found = profile.found === true;
  delete profile.found;
  return {
    profile: found ? (profile as unknown as ProfileRow) : undefined,
    partner: partner.id == null ? undefined : (partner as unknown as PartnerRow),
    balances: (row['partner.balances'] as CurrencyBalanceRow[] | null | undefined) ?? null,
  };
}

/**
 * The insert of a new partner as a part of a one-statement write (storeAlone): its id the one the
 * statement draws, its times the ones its reply tells (asStoredPartner).
 */
export function insertPartnerPart(row: NewPartnerRow, now: Date): StorePart {
  const columns = Object.keys(row) as Array<keyof NewPartnerRow>;
  return {
    sql: `insert into partners (id, created_at, updated_at, ${columns.join(', ')})
          values ((select id from drawn), ?, ?, ${columns.map(() => '?').join(', ')})`,
    bindings: [now, now, ...columns.map((c) => row[c] ?? null)],
  };
}

/**
 * An edit's load: the live partner, locked for update, the organization's currency, the partner's
 * balances per currency (an edit of its currency weighs them again) and the transaction's time, in
 * one statement. Its snapshot predates any wait for the lock: the partner row comes back as the last
 * writer left it, its balances as they stood before. When the row locked is not the one the snapshot
 * sees (another transaction, such as a ledger batch, wrote it while this waited), the load runs again
 * under the lock it now holds, so the balances are those that batch committed (partners.int "weighs
 * an edit of the partner's currency"). Only an edit that waited pays that second statement.
 */
export async function lockAndLoadPartner(trx: Knex, orgId: number, partnerId: number): Promise<EditPartnerState> {
  const load = () =>
    trx.raw(
      `select p.*, now() as loaded_at, p.xmin::text is distinct from
              (select s.xmin::text from partners s where s.org_id = p.org_id and s.id = p.id) as waited,
            (select a.default_currency from organization_profiles a where a.org_id = p.org_id) as organization_currency,
            ${CURRENCY_BALANCES_OF_P} as currency_balances
       from partners p where p.org_id = ? and p.id = ? and p.deleted_at is null for update of p`,
      [orgId, partnerId],
    );
  type Loaded = PartnerRow & {
    loaded_at: Date;
    waited: boolean;
    organization_currency: string | null;
    currency_balances: CurrencyBalanceRow[];
  };
  let row = ((await load()) as { rows: Loaded[] }).rows[0];
  if (row?.waited) row = ((await load()) as { rows: Loaded[] }).rows[0];
  if (!row) return { current: null, organizationCurrency: null, balances: [], now: new Date(0) };
  const { loaded_at, waited: _waited, organization_currency, currency_balances, ...current } = row;
  return { current, organizationCurrency: organization_currency, balances: currency_balances, now: loaded_at };
}

/** Writes an edit with the statement that commits (storeWithCommit): its updated_at is the transaction's time, as the load read it. */
export async function storePartnerEdit(trx: Knex.Transaction, edit: PartnerEdit): Promise<void> {
  const update = trx('partners')
    .where({ org_id: edit.orgId, id: edit.id })
    .update({ ...edit.changes, version: trx.raw('version + 1'), updated_at: trx.fn.now() } as never)
    .toSQL();
  await storeWithCommit(trx, [{ sql: update.sql, bindings: [...update.bindings] }]);
}

/**
 * The store of an edit decided from the request alone, as a one-statement write (storeAlone): the
 * live partner's update, which must find it (else the usual way answers), and the record PostgreSQL
 * keeps for it (record_json, the trigger's) filled in as the reply's `partner` and the event's `data`.
 */
export function partnerEditAlone(
  orgId: number,
  partnerId: number,
  changes: PartnerChanges,
): Pick<OneStatementWrite, 'parts' | 'expects' | 'fills'> {
  const columns = Object.keys(changes) as Array<keyof PartnerChanges>;
  const record = '(select record_json from store1)';
  return {
    parts: [
      {
        sql: `update partners set ${columns.map((c) => `${c} = ?`).join(', ')}, version = version + 1, updated_at = now()
               where org_id = ? and id = ? and deleted_at is null
               returning record_json`,
        bindings: [...columns.map((c) => (changes[c] ?? null) as Knex.RawBinding), orgId, partnerId],
      },
    ],
    expects: '(select count(*) from store1) = 1',
    fills: [
      { key: 'partner', sql: record },
      { key: 'data', sql: record },
    ],
  };
}

/**
 * The live partner a delete decides on, read with no lock in one statement: its version as the store
 * checks it (`xmin`: every move of its balances rewrites its figures, so changes it) and its balance
 * in each currency; null when it is not there.
 */
export async function readDeleteTarget(
  db: Knex,
  orgId: number,
  partnerId: number,
): Promise<{ version: string; balances: Array<{ currency: string; balance: string }> } | null> {
  const { rows } = await db.raw<{ rows: Array<{ version: string; balances: Array<{ currency: string; balance: string }> }> }>(
    `select p.xmin::text as version,
            coalesce((select json_agg(json_build_object('currency', b.currency, 'balance', b.balance::text) order by b.currency)
                        from partner_balances b where b.org_id = p.org_id and b.partner_id = p.id), '[]') as balances
       from partners p where p.org_id = ? and p.id = ? and p.deleted_at is null`,
    [orgId, partnerId],
  );
  return rows[0] ?? null;
}

/**
 * The store of a delete decided on an unlocked read (readDeleteTarget), as a one-statement write: the
 * partner marked deleted only while it is the row read (a balance moved since fails it), and only
 * while the fence the document services hold stands (`commitBy`, epoch milliseconds); the record
 * PostgreSQL keeps for it filled in as the event's `data`. Otherwise nothing stays and the usual
 * way decides under the partner's lock.
 */
export function partnerDeleteAlone(
  orgId: number,
  partnerId: number,
  read: { version: string; userId: string | null; commitBy: number },
): Pick<OneStatementWrite, 'parts' | 'expects' | 'fills'> {
  return {
    parts: [
      {
        sql: `update partners set deleted_at = now(), version = version + 1, updated_by = ?, updated_at = now()
               where org_id = ? and id = ? and deleted_at is null and xmin::text = ?
               returning record_json`,
        bindings: [read.userId, orgId, partnerId, read.version],
      },
    ],
    expects: `(select count(*) from store1) = 1 and clock_timestamp() < to_timestamp(${Number(read.commitBy) / 1000})`,
    fills: [{ key: 'data', sql: '(select record_json from store1)' }],
  };
}

/** Soft-deletes a partner, adding one to its version, and returns its row as deleted. */
export async function markPartnerDeleted(db: Knex, partnerId: number, userId: string | null): Promise<PartnerRow> {
  const [row] = await db<PartnerRow>('partners')
    .where({ id: partnerId })
    .update({ deleted_at: db.fn.now(), version: db.raw('version + 1'), updated_by: userId, updated_at: db.fn.now() } as never)
    .returning('*');
  return row as PartnerRow;
}

/** A posted row of a partner's ledger with what settles it so far. */
export interface TransactionRow {
  id: number;
  type: (typeof partners.partnerTransactionTypes)[number];
  document_number: string;
  date: string;
  amount: string;
  paid: string;
}

/**
 * A partner's ledger rows by date, each with its paid amount: a document's is the sum of the rows
 * that settle it (payments, allocations and their voids, credit applied, refunds of a credit note,
 * a write-off); any other row is paid in full by itself.
 */
export async function transactionsOf(db: Knex, orgId: number, partnerId: number): Promise<TransactionRow[]> {
  return db('partner_transactions as t')
    .select('t.id', 't.type', 't.document_number', 't.date', 't.amount')
    .select<TransactionRow[]>(
      db.raw(
        `case when t.source <> 'invoice' then t.amount else coalesce((select sum(p.amount) from partner_transactions p
           where p.org_id = t.org_id and p.source <> 'invoice' and p.invoice_id = t.invoice_id), 0) end as paid`,
      ),
    )
    .where({ 't.org_id': orgId, 't.partner_id': partnerId })
    .orderBy([{ column: 't.date' }, { column: 't.id' }]);
}

/** An open commitment: a converted quotation whose invoice is not validated or cancelled yet. */
export interface CommitmentRow {
  invoice_id: number;
  quotation_id: number | null;
  quotation_number: string | null;
  amount: string;
  created_at: Date;
}

/** A partner's open commitments, oldest first. */
export async function openCommitmentsOf(db: Knex, orgId: number, partnerId: number): Promise<CommitmentRow[]> {
  return db('commitments')
    .where({ org_id: orgId, partner_id: partnerId, status: 'open' })
    .select<CommitmentRow[]>('invoice_id', 'quotation_id', 'quotation_number', 'amount', 'created_at')
    .orderBy([{ column: 'created_at' }, { column: 'invoice_id' }]);
}
