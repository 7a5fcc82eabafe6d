import type { invoicing } from '@bo/contracts';
import { formatDate, toNumber } from '@bo/kernel';
import { selectPage, type Knex, type PageRequest } from '@bo/runtime';
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

export async function loadLevels(db: Knex, orgId: number): Promise<DunningLevel[]> {
  const rows = (await db('dunning_levels').where({ org_id: orgId }).orderBy('level')) as LevelRow[];
  return rows.map((r) => ({ level: r.level, days_after_due: r.days_after_due, fee: r.fee, interest: r.interest, text: r.text }));
}

export async function loadSettings(db: Knex, orgId: number): Promise<DunningSettings> {
  const row = (await db('dunning_settings').where({ org_id: orgId }).first()) as DunningSettings | undefined;
  return row ?? { reference_rate: null, points: '8', post_fees: false, fee_tax: null, fee_account: FEE_ACCOUNT };
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

/**
 * The customer invoices open with something to pay and due before `asOf`, each with the highest
 * level sent for it. `partners` narrows them to partners the run has looked up.
 */
export async function overdueInvoices(
  db: Knex,
  orgId: number,
  asOf: string,
  partners?: ReadonlyMap<number, { blocked: boolean }>,
): Promise<OverdueInvoice[]> {
  const { rows } = await db.raw<{
    rows: Array<{
      id: number;
      partner_id: number;
      invoicenumber: string;
      currency: string;
      due_date: string;
      due_amount: string;
      last_level: number;
      disputed: boolean;
      tradeaccount: string | null;
      exchange_rate: string | null;
    }>;
  }>(
    `select i.id, i.partner_id, i.invoicenumber, coalesce(i.currency, '') as currency, i.dunning_disputed as disputed,
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
      order by i.partner_id, i.id`,
    [orgId, asOf],
  );
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

export interface DisputeRow {
  /** The invoice's type; null when the organization has no invoice of that id. */
  invoicetype: string | null;
  /** The rest are null unless the invoice is a customer invoice, which the statement then updated. */
  invoicenumber: string | null;
  dunning_disputed: boolean | null;
  dunning_dispute_reason: string | null;
  dunning_disputed_at: Date | null;
}

/**
 * Sets or clears a customer invoice's dispute mark in one statement, and says what it found: a
 * mark already set keeps the time it was first set (and its reason unless a new one is given);
 * cleared, the reason and time go with it. Another type of invoice is found and left unchanged.
 */
export async function setDispute(
  db: Knex,
  orgId: number,
  invoiceId: number,
  disputed: boolean,
  reason: string | null,
): Promise<DisputeRow> {
  const { rows } = await db.raw<{ rows: DisputeRow[] }>(
    `with target as (select id, invoicetype from invoices where org_id = ? and id = ?),
          marked as (
            update invoices i
               set dunning_disputed = ?::boolean,
                   dunning_dispute_reason = case when ?::boolean then coalesce(?::text, case when i.dunning_disputed then i.dunning_dispute_reason end) end,
                   dunning_disputed_at = case when ?::boolean then case when i.dunning_disputed then i.dunning_disputed_at else now() end end
              from target t
             where i.org_id = ? and i.id = t.id and t.invoicetype = 'invoiceout'
         returning i.invoicenumber, i.dunning_disputed, i.dunning_dispute_reason, i.dunning_disputed_at)
     select t.invoicetype, m.* from (select 1) one left join target t on true left join marked m on true`,
    [orgId, invoiceId, disputed, disputed, reason, disputed, orgId],
  );
  return rows[0]!;
}
