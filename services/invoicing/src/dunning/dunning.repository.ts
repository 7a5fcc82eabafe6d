import type { invoicing } from '@bo/contracts';
import { formatDate, formatDateTime, formatDateTimeSql, toNumber } from '@bo/kernel';
import { selectPage, type Knex, type OneStatementWrite, type PageRequest, type StorePart } from '@bo/runtime';
import type { Dispute, DisputeState } from './decide-dispute';
import type { DunningLetterPlan, DunningLevel, FeePosting, InterestSetting, OverdueInvoice } from './decide-dunning';
import { FEE_ACCOUNT, feeTaxOf, type FeeTax } from './fee-invoice';

interface LevelRow {
  level: number;
  days_after_due: number;
  fee: string;
  interest: boolean;
  text: string;
}

export interface LetterRow {
  id: number;
  org_id: number;
  invoice_id: number;
  partner_id: number;
  level: number;
  as_of: Date | string;
  due_date: Date | string;
  currency: string;
  due_amount: string;
  days_overdue: number;
  fee: string;
  interest_rate: string | null;
  interest: string;
  total: string;
  text: string;
  fee_invoice_id: number | null;
}

export interface DunningSettings {
  reference_rate: string | null;
  points: string;
  post_fees: boolean;
  /** Null: the default (DEFAULT_FEE_TAX). */
  fee_tax: FeeTax | null;
  /** The income account posted fees are credited to (FEE_ACCOUNT until set). */
  fee_account: string;
}

/** The organization's reminder setup: its levels (by level) and its interest and fee settings. */
export interface DunningSetup {
  levels: DunningLevel[];
  settings: DunningSettings;
}

export async function loadLevels(db: Knex, orgId: number): Promise<DunningLevel[]> {
  const rows = (await db('dunning_levels').where({ org_id: orgId }).orderBy('level')) as LevelRow[];
  return rows.map((r) => ({ level: r.level, days_after_due: r.days_after_due, fee: r.fee, interest: r.interest, text: r.text }));
}

export async function loadSettings(db: Knex, orgId: number): Promise<DunningSettings> {
  const row = (await db('dunning_settings').where({ org_id: orgId }).first()) as DunningSettings | undefined;
  return row ?? DEFAULT_SETTINGS;
}

/** Whether a run posts its letters' fees, with which VAT, to which account. */
export const feesOf = (s: DunningSettings): FeePosting => ({ post: s.post_fees, tax: feeTaxOf(s.fee_tax), account: s.fee_account });

/** The interest a run charges: none without a reference rate. */
export const interestOf = (s: DunningSettings): InterestSetting | null =>
  s.reference_rate === null ? null : { reference_rate: s.reference_rate, points: s.points };

/**
 * Takes the organization's dunning settings row (made with its defaults if missing) locked until the
 * caller commits, as a statement of its own before the levels and settings are read: a second set
 * then waits, and its reads, each a statement taken after the wait, see what the first stored. Read
 * before it instead, both would replace the levels from what they read: the second's insert would
 * meet the first's levels (a 500) and its settings would undo the first's.
 */
export async function lockDunningSettings(db: Knex, orgId: number): Promise<void> {
  await db.raw('insert into dunning_settings (org_id) values (?) on conflict (org_id) do update set org_id = excluded.org_id', [orgId]);
}

const DEFAULT_SETTINGS: DunningSettings = { reference_rate: null, points: '8', post_fees: false, fee_tax: null, fee_account: FEE_ACCOUNT };

/** The organization's settings row as JSON, its decimals as exact text (binding: the organization); null when it has none. */
const SETTINGS_JSON = `(select row_to_json(s) from (select reference_rate::text as reference_rate, points::text as points, post_fees, fee_tax, fee_account
                                                       from dunning_settings where org_id = ?) s)`;
/** The organization's levels as a JSON array by level, fees as exact text (binding: the organization). */
const LEVELS_JSON = `(select coalesce(json_agg(l order by l.level), '[]') from (select level, days_after_due, fee::text as fee, interest, text
                                                                               from dunning_levels where org_id = ?) l)`;

/**
 * The organization's reminder setup in one statement, with its settings row's xmin (`read`, null
 * when it has none yet): every change of the setup writes that row (saveLevels), so a store decided
 * on the read holds only while it is still that row. Its decimals as exact text, as loadLevels and
 * loadSettings read them.
 */
export async function readDunningSetup(db: Knex, orgId: number): Promise<{ setup: DunningSetup; read: string | null }> {
  const { rows } = await db.raw<{ rows: Array<{ read: string | null; settings: DunningSettings | null; levels: DunningLevel[] }> }>(
    `select (select s.xmin::text from dunning_settings s where s.org_id = ?) as read, ${SETTINGS_JSON} as settings, ${LEVELS_JSON} as levels`,
    [orgId, orgId, orgId],
  );
  const row = rows[0]!;
  return { setup: { levels: row.levels, settings: row.settings ?? DEFAULT_SETTINGS }, read: row.read };
}

/**
 * A levels request decided on a read (readDunningSetup) as one statement (one-statement.ts), only
 * while the settings row is still the one read (none: still none): the settings written (`store1`,
 * which the other parts wait for, and write nothing without), the levels upserted and the others
 * deleted. `store` null (a listing) writes nothing and checks the same.
 */
export function levelsAlone(orgId: number, store: DunningSetup | null, read: string | null): Pick<OneStatementWrite, 'parts' | 'expects'> {
  if (!store) return { parts: [setupUnchanged(orgId, read)], expects: '(select unchanged from store1)' };
  const s = store.settings;
  const values = [s.reference_rate, s.points, s.post_fees, s.fee_tax === null ? null : JSON.stringify(s.fee_tax), s.fee_account];
  const settings =
    read === null
      ? {
          sql: `insert into dunning_settings (org_id, reference_rate, points, post_fees, fee_tax, fee_account)
                values (?, ?::numeric, ?::numeric, ?::boolean, ?::jsonb, ?::text) on conflict (org_id) do nothing returning org_id`,
          bindings: [orgId, ...values],
        }
      : {
          sql: `update dunning_settings set reference_rate = ?::numeric, points = ?::numeric, post_fees = ?::boolean, fee_tax = ?::jsonb, fee_account = ?::text
                 where org_id = ? and xmin::text = ? returning org_id`,
          bindings: [...values, orgId, read],
        };
  return {
    parts: [
      settings,
      {
        sql: `insert into dunning_levels (org_id, level, days_after_due, fee, interest, text)
              select ?, l.level, l.days_after_due, l.fee, l.interest, l.text
                from jsonb_to_recordset(?::jsonb) as l(level int, days_after_due int, fee numeric, interest boolean, text text)
               where exists (select 1 from store1)
              on conflict (org_id, level) do update
                 set days_after_due = excluded.days_after_due, fee = excluded.fee, interest = excluded.interest, text = excluded.text`,
        bindings: [orgId, JSON.stringify(store.levels)],
      },
      {
        sql: 'delete from dunning_levels where org_id = ? and level <> all(?::int[]) and exists (select 1 from store1)',
        bindings: [orgId, store.levels.map((l) => l.level)],
      },
    ],
    expects: '(select count(*) from store1) = 1',
  };
}

/**
 * A part answering `unchanged`: whether the organization's settings row is still the one read
 * (readDunningSetup's `read`; none: still none), so the levels and settings a decision took stand.
 */
function setupUnchanged(orgId: number, read: string | null): StorePart {
  return {
    sql: 'select (select xmin::text from dunning_settings where org_id = ?) is not distinct from ?::text as unchanged',
    bindings: [orgId, read],
  };
}

/** Replaces the organization's levels and interest setting; the caller holds lockDunningSettings. */
export async function saveLevels(db: Knex, orgId: number, levels: readonly DunningLevel[], settings: DunningSettings): Promise<void> {
  await db('dunning_levels').where({ org_id: orgId }).del();
  if (levels.length) await db('dunning_levels').insert(levels.map((l) => ({ org_id: orgId, ...l })));
  await db('dunning_settings')
    .insert({ org_id: orgId, ...settings, fee_tax: settings.fee_tax === null ? null : JSON.stringify(settings.fee_tax) })
    .onConflict('org_id')
    .merge();
}

export const levelRecord = (l: DunningLevel): invoicing.DunningLevelRecord => ({
  level: l.level,
  days_after_due: l.days_after_due,
  fee: toNumber(l.fee),
  interest: l.interest,
  text: l.text,
});

interface OverdueRow {
  id: number;
  /** The invoice's xmin as read. */
  read: string;
  partner_id: number;
  invoicenumber: string;
  currency: string;
  due_date: string;
  due_amount: string;
  last_level: number;
  disputed: boolean;
  tradeaccount: string | null;
  exchange_rate: string | null;
}

/**
 * The customer invoices open with something to pay and due before the day (bindings: the
 * organization, the day), each with the highest level sent for it, by partner then invoice.
 */
const OVERDUE_SQL = `select i.id, i.xmin::text as read, i.partner_id, i.invoicenumber, coalesce(i.currency, '') as currency, i.dunning_disputed as disputed,
            i.tradeaccount,
            case when i.currency is distinct from i.accounting_currency then i.exchange_rate::text end as exchange_rate,
            to_char(i.invoicedue, 'YYYY-MM-DD') as due_date,
            (i.invoicetotal - i.amount_paid - i.written_off_amount)::text as due_amount,
            coalesce((select max(l.level) from dunning_letters l where l.org_id = i.org_id and l.invoice_id = i.id), 0)::int as last_level
       from invoices i
      where i.org_id = ? and i.invoicetype = 'invoiceout' and i.invoicestatus = 'open'
        and i.invoicedue < ?::date and i.invoicetotal - i.amount_paid - i.written_off_amount > 0
        -- A posted fee is claimed by the letter that made it: no reminders, and no fees, of its own.
        and not exists (select 1 from dunning_letters f where f.org_id = i.org_id and f.fee_invoice_id = i.id)
      order by i.partner_id, i.id`;

/** The overdue rows as decideDunning takes them; `partners` narrows them to partners the run has looked up. */
function toOverdue(rows: readonly OverdueRow[], partners?: ReadonlyMap<number, { blocked: boolean }>): OverdueInvoice[] {
  return rows
    .filter((r) => !partners || partners.has(r.partner_id))
    .map((r) => ({
      invoice_id: r.id,
      partner_id: r.partner_id,
      invoicenumber: r.invoicenumber,
      currency: r.currency,
      due_date: r.due_date,
      due_amount: r.due_amount,
      disputed: r.disputed,
      partner_blocked: partners?.get(r.partner_id)?.blocked ?? false,
      last_level: r.last_level,
      tradeaccount: r.tradeaccount,
      exchange_rate: r.exchange_rate,
    }));
}

/**
 * What a reminder run decides on, in one statement: the overdue invoices (overdueInvoices, narrowed
 * to `partners` when given) and the organization's reminder setup (its levels and settings).
 */
export async function loadDunningRun(
  db: Knex,
  orgId: number,
  asOf: string,
  partners?: ReadonlyMap<number, { blocked: boolean }>,
): Promise<{ invoices: OverdueInvoice[]; setup: DunningSetup }> {
  const { rows } = await db.raw<{ rows: Array<{ overdue: OverdueRow[]; settings: DunningSettings | null; levels: DunningLevel[] }> }>(
    `select (select coalesce(json_agg(o order by o.partner_id, o.id), '[]') from (${OVERDUE_SQL}) o) as overdue,
            ${SETTINGS_JSON} as settings, ${LEVELS_JSON} as levels`,
    [orgId, asOf, orgId, orgId],
  );
  const row = rows[0]!;
  return { invoices: toOverdue(row.overdue, partners), setup: { levels: row.levels, settings: row.settings ?? DEFAULT_SETTINGS } };
}

/** What a reminder run decides on as read with no lock (readDunningRun), and what a store decided on it checks. */
export interface DunningRunAsRead {
  invoices: OverdueInvoice[];
  setup: DunningSetup;
  /** Each invoice's xmin as read, by invoice: a letter decided on it is stored only while the invoice is still that row. */
  reads: ReadonlyMap<number, string>;
  /** The settings row's xmin as read (readDunningSetup's `read`), null when it has none. */
  setupRead: string | null;
  /** Ids drawn for the letters to store (empty unless asked, `draw`). */
  drawn: number[];
}

/**
 * loadDunningRun with no lock, in one statement, with what a store decided on it checks: each
 * invoice's xmin and the settings row's. With `draw`, it draws a letter id for each invoice read
 * whose next level exists and has come and that is not disputed: a bound of the letters
 * decideDunning can decide (it decides them; a blocked partner's invoice wastes its id), so a run
 * that sends nothing draws none.
 */
export async function readDunningRun(db: Knex, orgId: number, asOf: string, opts: { draw: boolean }): Promise<DunningRunAsRead> {
  const { rows } = await db.raw<{
    rows: Array<{ overdue: OverdueRow[]; settings: DunningSettings | null; levels: DunningLevel[]; read: string | null; drawn: number[] }>;
  }>(
    `with o as (${OVERDUE_SQL})
     select (select coalesce(json_agg(o order by o.partner_id, o.id), '[]') from o) as overdue,
            ${SETTINGS_JSON} as settings, ${LEVELS_JSON} as levels,
            (select s.xmin::text from dunning_settings s where s.org_id = ?) as read,
            array(select nextval(pg_get_serial_sequence('dunning_letters', 'id'))::int
                    from o join dunning_levels v on v.org_id = ? and v.level = o.last_level + 1
                   where ?::boolean and not o.disputed and o.due_date::date + v.days_after_due <= ?::date) as drawn`,
    [orgId, asOf, orgId, orgId, orgId, orgId, opts.draw, asOf],
  );
  const row = rows[0]!;
  return {
    invoices: toOverdue(row.overdue),
    setup: { levels: row.levels, settings: row.settings ?? DEFAULT_SETTINGS },
    reads: new Map(row.overdue.map((r) => [r.id, r.read])),
    setupRead: row.read,
    drawn: row.drawn,
  };
}

/** A letter decided on a run's read, with the id drawn for it and its invoice's xmin as read. */
export interface LetterToStore {
  id: number;
  plan: DunningLetterPlan;
  read: string;
}

/**
 * A run decided on an unlocked read (readDunningRun) as one statement (one-statement.ts), only while
 * what it decided on stands: the settings row is the one read (`store1`: the levels and settings),
 * and each letter's invoice is the row read (not paid, disputed, cancelled or changed since). Each
 * letter is inserted under its natural key (organization, invoice, level) with its drawn id
 * (`store2`); `expects` holds only when every one was, so a letter another run holds already (a
 * repeat, a twin on another replica), or any of the checks failing, leaves nothing, and the locked
 * way stores and announces what is left to send, letter by letter. With no letters (a dry run, or
 * nothing due) it writes nothing and checks the settings alone.
 */
export function lettersAlone(
  orgId: number,
  asOf: string,
  letters: readonly LetterToStore[],
  setupRead: string | null,
): Pick<OneStatementWrite, 'parts' | 'expects'> {
  const unchanged = setupUnchanged(orgId, setupRead);
  if (!letters.length) return { parts: [unchanged], expects: '(select unchanged from store1)' };
  const rows = letters.map(({ id, plan, read }) => ({
    id,
    invoice_id: plan.invoice_id,
    partner_id: plan.partner_id,
    level: plan.level,
    due_date: plan.due_date,
    currency: plan.currency,
    due_amount: plan.due_amount,
    days_overdue: plan.days_overdue,
    fee: plan.fee,
    interest_rate: plan.interest_rate,
    interest: plan.interest,
    total: plan.total,
    text: plan.text,
    read,
  }));
  return {
    parts: [
      unchanged,
      {
        sql: `insert into dunning_letters (id, org_id, invoice_id, partner_id, level, as_of, due_date, currency, due_amount, days_overdue,
                                           fee, interest_rate, interest, total, text)
              select l.id, ?, l.invoice_id, l.partner_id, l.level, ?::date, l.due_date, l.currency, l.due_amount, l.days_overdue,
                     l.fee, l.interest_rate, l.interest, l.total, l.text
                from jsonb_to_recordset(?::jsonb) as l(id int, invoice_id int, partner_id int, level int, due_date date, currency text,
                                                       due_amount numeric, days_overdue int, fee numeric, interest_rate numeric,
                                                       interest numeric, total numeric, text text, read text)
               where (select unchanged from store1)
                 and exists (select 1 from invoices i where i.org_id = ? and i.id = l.invoice_id and i.xmin::text = l.read)
              on conflict (org_id, invoice_id, level) do nothing
              returning id`,
        bindings: [orgId, asOf, JSON.stringify(rows), orgId],
      },
    ],
    expects: `(select unchanged from store1) and (select count(*) from store2) = ${letters.length}`,
  };
}

/**
 * Stores a letter under its natural key (organization, invoice, level): the row when this insert
 * took the key, undefined when another run (repeated, or concurrent on another replica) holds it.
 */
export async function insertLetter(db: Knex, orgId: number, asOf: string, plan: DunningLetterPlan): Promise<LetterRow | undefined> {
  const [row] = (await db('dunning_letters')
    .insert({
      org_id: orgId,
      invoice_id: plan.invoice_id,
      partner_id: plan.partner_id,
      level: plan.level,
      as_of: asOf,
      due_date: plan.due_date,
      currency: plan.currency,
      due_amount: plan.due_amount,
      days_overdue: plan.days_overdue,
      fee: plan.fee,
      interest_rate: plan.interest_rate,
      interest: plan.interest,
      total: plan.total,
      text: plan.text,
    })
    .onConflict(['org_id', 'invoice_id', 'level'])
    .ignore()
    .returning('*')) as LetterRow[];
  return row;
}

/** Keeps the fee invoice a stored letter's fee was posted as. */
export async function setFeeInvoice(db: Knex, orgId: number, letterId: number, invoiceId: number): Promise<void> {
  await db('dunning_letters').where({ org_id: orgId, id: letterId }).update({ fee_invoice_id: invoiceId });
}

export function letterRecord(
  row: Omit<LetterRow, 'org_id' | 'id'> & { id: number | null },
  invoicenumber: string,
): invoicing.DunningLetterRecord {
  return {
    id: row.id,
    invoice_id: row.invoice_id,
    invoicenumber,
    partner: row.partner_id,
    level: row.level,
    as_of: formatDate(row.as_of) ?? String(row.as_of),
    due_date: formatDate(row.due_date) ?? String(row.due_date),
    currency: row.currency,
    due_amount: toNumber(row.due_amount),
    days_overdue: row.days_overdue,
    fee: toNumber(row.fee),
    interest_rate: row.interest_rate === null ? null : toNumber(row.interest_rate),
    interest: toNumber(row.interest),
    total: toNumber(row.total),
    text: row.text,
    fee_invoice_id: row.fee_invoice_id,
  };
}

export function planRecord(plan: DunningLetterPlan, asOf: string): invoicing.DunningLetterRecord {
  return letterRecord({ ...plan, id: null, as_of: asOf, fee_invoice_id: null }, plan.invoicenumber);
}

/** A page of the organization's letters, newest first, by invoice, partner or level, with each invoice's number. */
export async function pageOfLetters(
  db: Knex,
  orgId: number,
  filters: { invoice_id?: number | undefined; partner?: number | undefined; level?: number | undefined },
  page: PageRequest,
) {
  const filtered = db('dunning_letters as l')
    .join('invoices as i', (j) => j.on('i.org_id', 'l.org_id').andOn('i.id', 'l.invoice_id'))
    .where('l.org_id', orgId);
  if (filters.invoice_id !== undefined) void filtered.where('l.invoice_id', filters.invoice_id);
  if (filters.partner !== undefined) void filtered.where('l.partner_id', filters.partner);
  if (filters.level !== undefined) void filtered.where('l.level', filters.level);
  return selectPage<LetterRow & { invoicenumber: string }>(filtered.select('l.*', 'i.invoicenumber'), page, (p) =>
    p.orderBy('l.id', 'desc'),
  );
}

type LetterWithInvoice = LetterRow & { invoicenumber: string; payment_reference: string | null };

/** One letter of the organization with its invoice's number and payment reference; undefined when it has none of that id. */
export async function findLetter(db: Knex, orgId: number, id: number): Promise<LetterWithInvoice | undefined> {
  const { rows } = await db.raw<{ rows: LetterWithInvoice[] }>(
    `select l.*, i.invoicenumber, i.payment_reference
       from dunning_letters l join invoices i on i.org_id = l.org_id and i.id = l.invoice_id
      where l.org_id = ? and l.id = ?`,
    [orgId, id],
  );
  return rows[0];
}

/**
 * The invoice a dispute marks, as decideDispute judges it, with its xmin as read; `lock` takes the
 * invoice's lock. Undefined when the organization has no invoice of that id.
 */
export async function readDisputeTarget(
  db: Knex,
  orgId: number,
  invoiceId: number,
  opts: { lock?: boolean } = {},
): Promise<{ invoice: DisputeState; read: string } | undefined> {
  const { rows } = await db.raw<{
    rows: Array<Omit<DisputeState, 'dunning_disputed_at'> & { dunning_disputed_at: Date | null; read: string }>;
  }>(
    `select invoicetype, invoicenumber, dunning_disputed, dunning_dispute_reason, dunning_disputed_at, xmin::text as read
       from invoices where org_id = ? and id = ?${opts.lock ? ' for update' : ''}`,
    [orgId, invoiceId],
  );
  const found = rows[0];
  if (!found) return undefined;
  const { read, ...invoice } = found;
  return { invoice: { ...invoice, dunning_disputed_at: formatDateTime(invoice.dunning_disputed_at) }, read };
}

/** The update of a decided dispute mark, only while the invoice is the row `read` when given; it answers the time the mark stands at. */
function disputeUpdate(orgId: number, dispute: Dispute, read?: string) {
  const at = dispute.disputedAt === null ? 'null' : dispute.disputedAt === 'now' ? 'now()' : 'dunning_disputed_at';
  return {
    sql: `update invoices set dunning_disputed = ?::boolean, dunning_dispute_reason = ?::text, dunning_disputed_at = ${at}
           where org_id = ? and id = ?${read === undefined ? '' : ' and xmin::text = ?'}
           returning ${formatDateTimeSql('dunning_disputed_at')} as disputed_at`,
    bindings: [dispute.disputed, dispute.reason, orgId, dispute.invoice_id, ...(read === undefined ? [] : [read])],
  };
}

/**
 * A dispute decided on an unlocked read (readDisputeTarget) as one statement (one-statement.ts), only
 * while the invoice is still the row read; the time a mark set now is filled in where the reply says
 * `disputed_at`.
 */
export function disputeAlone(orgId: number, dispute: Dispute, read: string): Pick<OneStatementWrite, 'parts' | 'expects' | 'fills'> {
  return {
    parts: [disputeUpdate(orgId, dispute, read)],
    expects: '(select count(*) from store1) = 1',
    fills: dispute.disputedAt === 'now' ? [{ key: 'disputed_at', sql: '(select to_json(disputed_at)::text from store1)' }] : [],
  };
}

/** Stores a dispute decided on the invoice locked (readDisputeTarget); the time the mark stands at, as formatDateTime writes it. */
export async function storeDispute(db: Knex, orgId: number, dispute: Dispute): Promise<string | null> {
  const { sql, bindings } = disputeUpdate(orgId, dispute);
  const { rows } = await db.raw<{ rows: Array<{ disputed_at: string | null }> }>(sql, bindings);
  return rows[0]!.disputed_at;
}
