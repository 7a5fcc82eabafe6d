import { createHash } from 'node:crypto';
import type { invoicing, Pagination } from '@bo/contracts';
import { dec, formatDate, formatDateTime, toNumber } from '@bo/kernel';
import { paginationOf, selectPage, type Knex, type OneStatementWrite, type PageRequest } from '@bo/runtime';
import { dueOfDocument } from '../domain/cash';
import { partnersByIbanOf, type MatchContext, type MatchLine, type MatchRule, type OpenDocument } from './matching';
import type { ParsedStatement, ParsedStatementLine } from './statement';
import { bankRefusals } from './bank-refusals';
import type { BankRuleChange } from './decide-bank-rule';

export interface StatementRow {
  id: number;
  org_id: number;
  journal: string;
  iban: string;
  statement_id: string;
  sequence: string | null;
  format: 'camt053' | 'mt940' | 'csv';
  currency: string;
  opening_balance: string;
  closing_balance: string;
  statement_date: string | Date | null;
  line_count: number;
  created_at: string | Date;
}

export interface LineRow {
  id: number;
  org_id: number;
  statement_id: number;
  iban: string;
  natural_key: string;
  amount: string;
  currency: string;
  booking_date: string | Date;
  value_date: string | Date | null;
  bank_reference: string | null;
  end_to_end_id: string | null;
  structured_reference: string | null;
  remittance_text: string | null;
  counterparty_name: string | null;
  counterparty_iban: string | null;
  status: invoicing.BankLineStatus;
}

export interface ReconciliationRow {
  id: number;
  line_id: number;
  payment_id: number | null;
  made_payment: boolean;
  journal_entry_id: number | null;
  status: 'active' | 'undone';
}

/** A line's active reconciliation, as the line's load reads it beside the line. */
export type ActiveReconciliation = Pick<ReconciliationRow, 'id' | 'payment_id' | 'made_payment' | 'journal_entry_id'>;

/** What setting a line aside or opening it again decides on: the line, and its active reconciliation (null: none). */
export interface LineLoad {
  line: LineRow;
  reconciliation: ActiveReconciliation | null;
}

/**
 * A line's natural key within its account: the bank's own reference of the entry when it gives
 * one, else a digest of everything the line says. Two lines with the same key are one booking seen
 * twice (a repeated line, overlapping statements): the second is not stored.
 */
export function naturalKey(line: ParsedStatementLine): string {
  if (line.bank_reference) return `ref:${line.bank_reference}`.slice(0, 200);
  const said = [
    line.booking_date,
    dec(line.amount).toFixed(),
    line.currency,
    line.end_to_end_id,
    line.structured_reference,
    line.remittance_text,
    line.counterparty_name,
    line.counterparty_iban,
  ].join('\u0000');
  return `sha256:${createHash('sha256').update(said).digest('hex')}`;
}

export function statementRecord(row: StatementRow): invoicing.BankStatementRecord {
  return {
    id: row.id,
    journal: row.journal,
    iban: row.iban,
    statement_id: row.statement_id,
    sequence: row.sequence,
    format: row.format,
    currency: row.currency,
    opening_balance: toNumber(row.opening_balance),
    closing_balance: toNumber(row.closing_balance),
    statement_date: formatDate(row.statement_date),
    line_count: row.line_count,
    created_at: formatDateTime(row.created_at) ?? '',
  };
}

export function lineRecord(
  row: LineRow,
  rec: Pick<ReconciliationRow, 'payment_id' | 'journal_entry_id'> | undefined,
): invoicing.BankLineRecord {
  return {
    id: row.id,
    statement: row.statement_id,
    amount: toNumber(row.amount),
    currency: row.currency,
    booking_date: formatDate(row.booking_date) ?? '',
    value_date: formatDate(row.value_date),
    bank_reference: row.bank_reference,
    end_to_end_id: row.end_to_end_id,
    structured_reference: row.structured_reference,
    remittance_text: row.remittance_text,
    counterparty_name: row.counterparty_name,
    counterparty_iban: row.counterparty_iban,
    status: row.status,
    payment_id: rec?.payment_id ?? null,
    journal_entry_id: rec?.journal_entry_id ?? null,
  };
}

export async function lineRecords(db: Knex, rows: LineRow[]): Promise<invoicing.BankLineRecord[]> {
  const recs = rows.length
    ? await db<ReconciliationRow>('bank_reconciliations')
        .whereIn(
          'line_id',
          rows.map((r) => r.id),
        )
        .where({ status: 'active' })
    : [];
  const byLine = new Map(recs.map((r) => [r.line_id, r]));
  return rows.map((r) => lineRecord(r, byLine.get(r.id)));
}

export async function findLine(db: Knex, orgId: number, id: number, opts: { lock?: boolean } = {}): Promise<LineRow> {
  const q = db<LineRow>('bank_lines').where({ org_id: orgId, id });
  if (opts.lock) void q.forUpdate();
  const row = await q.first();
  if (!row) throw bankRefusals.bankLineNotFound(id);
  return row;
}

/**
 * A line of the organization and its active reconciliation, in one statement (LineLoad), with the
 * line's row version (`read`, its xmin). `locked`: the line locked first; when its lock was waited
 * for (a commit changed it meanwhile), what the statement read beside it is as its snapshot, taken
 * before the wait, saw it, so it is read again, holding the lock.
 */
function lineLoad(mode: 'read' | 'locked'): string {
  return `select l.*, l.xmin::text as read_version,
                 ${mode === 'locked' ? '(select s.xmin::text from bank_lines s where s.id = l.id)' : 'l.xmin::text'} as seen_version,
                 (select json_build_object('id', r.id, 'payment_id', r.payment_id, 'made_payment', r.made_payment,
                                           'journal_entry_id', r.journal_entry_id)
                    from bank_reconciliations r where r.line_id = l.id and r.status = 'active') as reconciliation
            from bank_lines l where l.org_id = ? and l.id = ?${mode === 'locked' ? ' for update of l' : ''}`;
}

type LoadedLine = LineRow & { read_version: string; seen_version: string; reconciliation: LineLoad['reconciliation'] };

function loadOfLine(row: LoadedLine): { load: LineLoad; read: string } {
  const { read_version: read, seen_version: _seen, reconciliation, ...line } = row;
  return { load: { line, reconciliation }, read };
}

/** A line and its active reconciliation read with no lock, for an optimistic store (lineStatusAlone); undefined: no such line. */
export async function readLine(db: Knex, orgId: number, id: number): Promise<{ load: LineLoad; read: string } | undefined> {
  const { rows } = await db.raw<{ rows: LoadedLine[] }>(lineLoad('read'), [orgId, id]);
  return rows[0] && loadOfLine(rows[0]);
}

/** A line locked, and its active reconciliation as it stands under the lock; undefined: no such line. */
export async function loadLine(trx: Knex.Transaction, orgId: number, id: number): Promise<LineLoad | undefined> {
  for (let attempt = 1; ; attempt++) {
    const { rows } = await trx.raw<{ rows: LoadedLine[] }>(lineLoad('locked'), [orgId, id]);
    const row = rows[0];
    if (!row || row.read_version === row.seen_version || attempt === 3) return row && loadOfLine(row).load;
  }
}

/** A line's status set as one statement (one-statement.ts), only while the line is the row read (its xmin `read`); else nothing. */
export function lineStatusAlone(id: number, status: invoicing.BankLineStatus, read: string): Pick<OneStatementWrite, 'parts' | 'expects'> {
  return {
    parts: [{ sql: 'update bank_lines set status = ? where id = ? and xmin::text = ? returning id', bindings: [status, id, read] }],
    expects: '(select count(*) from store1) = 1',
  };
}

export function matchLine(row: LineRow): MatchLine {
  return {
    amount: dec(row.amount),
    currency: row.currency,
    structured_reference: row.structured_reference,
    remittance_text: row.remittance_text,
    end_to_end_id: row.end_to_end_id,
    counterparty_name: row.counterparty_name,
    counterparty_iban: row.counterparty_iban,
  };
}

/**
 * What matching reads: the organization's open customer invoices and vendor bills with what they
 * owe, its rules, and the partners known by IBAN (partnersByIbanOf: the payers of lines reconciled
 * with a payment before, the partners' own bank accounts, rules naming an IBAN and a partner).
 */
export async function matchContext(db: Knex, orgId: number): Promise<MatchContext> {
  const docs = await db('invoices')
    .where({ org_id: orgId, invoicestatus: 'open' })
    .whereIn('invoicetype', ['invoiceout', 'invoicein'])
    .select(
      'id',
      'invoicenumber',
      'invoicetype',
      'partner_id',
      'currency',
      'invoicetotal',
      'amount_paid',
      'written_off_amount',
      'payment_reference',
      'invoicedatetime',
    )
    .orderBy('id');
  const documents: OpenDocument[] = docs.map((d: Record<string, unknown>) => ({
    id: d['id'] as number,
    invoicenumber: (d['invoicenumber'] as string | null) ?? '',
    invoicetype: d['invoicetype'] as string,
    partner_id: d['partner_id'] as number,
    currency: (d['currency'] as string | null) ?? '',
    due: dueOfDocument(d as Parameters<typeof dueOfDocument>[0]),
    date: formatDate(d['invoicedatetime'] as Date) ?? '',
    payment_reference: (d['payment_reference'] as string | null) ?? null,
  }));
  const ruleRows = await db('bank_rules').where({ org_id: orgId }).orderBy('id');
  const rules: MatchRule[] = ruleRows.map((r: Record<string, unknown>) => ({
    id: r['id'] as number,
    match_text: (r['match_text'] as string | null) ?? null,
    match_iban: (r['match_iban'] as string | null) ?? null,
    partner_id: (r['partner_id'] as number | null) ?? null,
    account: (r['account'] as string | null) ?? null,
  }));
  const learned = (
    await db.raw<{ rows: Array<{ iban: string; partner_id: number }> }>(
      `select distinct l.counterparty_iban as iban, p.partner_id from bank_lines l
         join bank_reconciliations r on r.line_id = l.id join payments p on p.id = r.payment_id
        where l.org_id = ? and r.status = 'active' and l.counterparty_iban is not null`,
      [orgId],
    )
  ).rows;
  const own = (
    await db.raw<{ rows: Array<{ iban: string; partner_id: number }> }>(
      `select distinct unnest(ibans) as iban, id as partner_id from partner_directory
        where org_id = ? and deleted_at is null and cardinality(ibans) > 0`,
      [orgId],
    )
  ).rows;
  const partnersByIban = partnersByIbanOf(learned, own, rules);
  return { documents, partnersByIban, rules };
}

/** Whether import reconciles what its references name (`bank_autoreconcile`); true until set. */
export async function autoreconciles(db: Knex, orgId: number): Promise<boolean> {
  const row = (await db('bank_settings').select('autoreconcile').where({ org_id: orgId }).first()) as
    { autoreconcile: boolean } | undefined;
  return row?.autoreconcile ?? true;
}

/** Sets whether import reconciles what its references name. */
export async function storeBankSettings(db: Knex, orgId: number, autoreconcile: boolean): Promise<void> {
  await db('bank_settings').insert({ org_id: orgId, autoreconcile }).onConflict('org_id').merge({ autoreconcile, updated_at: db.fn.now() });
}

/**
 * The bank settings' store as one statement (one-statement.ts): the setting given upserted, or, with
 * none given, the settings read as they stand, filled in where the reply says `bank_autoreconcile`.
 */
export function bankSettingsAlone(orgId: number, autoreconcile: boolean | undefined): Pick<OneStatementWrite, 'parts' | 'fills'> {
  if (autoreconcile !== undefined)
    return {
      parts: [
        {
          sql: `insert into bank_settings (org_id, autoreconcile) values (?, ?)
                on conflict (org_id) do update set autoreconcile = excluded.autoreconcile, updated_at = now()`,
          bindings: [orgId, autoreconcile],
        },
      ],
    };
  return {
    parts: [
      {
        sql: 'select coalesce((select autoreconcile from bank_settings where org_id = ?::int), true) as autoreconcile',
        bindings: [orgId],
      },
    ],
    fills: [{ key: 'bank_autoreconcile', sql: '(select autoreconcile::text from store1)' }],
  };
}

/** Serializes the imports of one account until the transaction ends. */
export async function lockAccount(db: Knex, orgId: number, iban: string): Promise<void> {
  await db.raw('select pg_advisory_xact_lock(hashtextextended(?, 0))', [`bank_statements:${orgId}:${iban}`]);
}

/** A statement of the account imported before under the same statement id or electronic sequence number. */
export async function sameStatement(
  db: Knex,
  orgId: number,
  iban: string,
  statementId: string,
  sequence: string | null,
): Promise<StatementRow | undefined> {
  return db<StatementRow>('bank_statements')
    .where({ org_id: orgId, iban })
    .where((q) => {
      void q.where({ statement_id: statementId });
      if (sequence) void q.orWhere({ sequence });
    })
    .first();
}

/** The account's last statement imported: the next one opens where it closed. */
export async function previousStatement(db: Knex, orgId: number, iban: string): Promise<StatementRow | undefined> {
  return db<StatementRow>('bank_statements').where({ org_id: orgId, iban }).orderBy('id', 'desc').first();
}

export async function insertStatement(
  db: Knex,
  orgId: number,
  row: { journal: string; iban: string; format: StatementRow['format']; statement: ParsedStatement },
): Promise<StatementRow> {
  const { statement } = row;
  const [stored] = (await db('bank_statements')
    .insert({
      org_id: orgId,
      journal: row.journal,
      iban: row.iban,
      statement_id: statement.statement_id.slice(0, 100),
      sequence: statement.sequence?.slice(0, 40) ?? null,
      format: row.format,
      currency: statement.currency,
      opening_balance: statement.opening_balance,
      closing_balance: statement.closing_balance,
      statement_date: statement.closing_date,
      line_count: statement.lines.length,
    })
    .returning('*')) as StatementRow[];
  return stored!;
}

export async function updateClosingBalance(db: Knex, id: number, closing: string): Promise<StatementRow> {
  const [row] = (await db('bank_statements').where({ id }).update({ closing_balance: closing }).returning('*')) as StatementRow[];
  return row!;
}

/**
 * Stores a statement's lines, each once by its natural key within the account: a key seen before
 * (from an earlier statement) is skipped. Answers the lines stored, in the order of their ids.
 */
export async function insertLines(
  db: Knex,
  orgId: number,
  statement: StatementRow,
  lines: ReadonlyArray<{ line: ParsedStatementLine; key: string }>,
): Promise<LineRow[]> {
  if (!lines.length) return [];
  const rows = (await db('bank_lines')
    .insert(
      lines.map(({ line, key }) => ({
        org_id: orgId,
        statement_id: statement.id,
        iban: statement.iban,
        natural_key: key,
        amount: line.amount,
        currency: line.currency || statement.currency,
        booking_date: line.booking_date,
        value_date: line.value_date,
        bank_reference: line.bank_reference?.slice(0, 200) ?? null,
        end_to_end_id: line.end_to_end_id?.slice(0, 200) ?? null,
        structured_reference: line.structured_reference?.slice(0, 200) ?? null,
        remittance_text: line.remittance_text?.slice(0, 2000) ?? null,
        counterparty_name: line.counterparty_name?.slice(0, 200) ?? null,
        counterparty_iban: line.counterparty_iban?.slice(0, 40) ?? null,
      })),
    )
    .onConflict(['org_id', 'iban', 'natural_key'])
    .ignore()
    .returning('*')) as LineRow[];
  return rows.sort((a, b) => a.id - b.id);
}

export async function setLineStatus(db: Knex, id: number, status: invoicing.BankLineStatus): Promise<void> {
  await db('bank_lines').where({ id }).update({ status });
}

export async function listStatementPage(
  db: Knex,
  orgId: number,
  req: PageRequest & { iban?: string },
): Promise<{ statements: invoicing.BankStatementRecord[]; pagination: Pagination }> {
  const filtered = db('bank_statements').where({ org_id: orgId });
  if (req.iban !== undefined) void filtered.where({ iban: req.iban });
  const { rows, total } = await selectPage<StatementRow>(filtered.select('*'), req, (page) => page.orderBy('id', 'desc'));
  return { statements: rows.map(statementRecord), pagination: paginationOf(req, total) };
}

export async function listLinePage(
  db: Knex,
  orgId: number,
  req: PageRequest & { statement?: number; status?: invoicing.BankLineStatus },
): Promise<{ lines: invoicing.BankLineRecord[]; pagination: Pagination }> {
  const filtered = db('bank_lines').where({ org_id: orgId });
  if (req.statement !== undefined) void filtered.where({ statement_id: req.statement });
  if (req.status !== undefined) void filtered.where({ status: req.status });
  const { rows, total } = await selectPage<LineRow>(filtered.select('*'), req, (page) => page.orderBy('id'));
  return { lines: await lineRecords(db, rows), pagination: paginationOf(req, total) };
}

interface RuleRow {
  id: number;
  name: string;
  match_text: string | null;
  match_iban: string | null;
  partner_id: number | null;
  account: string | null;
}

export async function listRules(db: Knex, orgId: number): Promise<invoicing.RulesReply['rules']> {
  const rows = (await db('bank_rules').where({ org_id: orgId }).orderBy('id')) as RuleRow[];
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    match_text: r.match_text,
    match_iban: r.match_iban,
    partner: r.partner_id,
    account: r.account,
  }));
}

const RULE_COLUMNS = 'id, name, match_text, match_iban, partner_id, account';

/** The rules of the parts named (each answering RULE_COLUMNS), as the JSON text of a reply's `rules`, by id. */
function rulesOf(...parts: string[]): string {
  return `(select coalesce(json_agg(json_build_object('id', r.id, 'name', r.name, 'match_text', r.match_text, 'match_iban', r.match_iban,
                                                    'partner', r.partner_id, 'account', r.account) order by r.id), '[]')::text
             from (${parts.map((p) => `select ${RULE_COLUMNS} from ${p}`).join(' union all ')}) r)`;
}

/**
 * A `bank.rules` change as one statement (one-statement.ts), the rules as it leaves them filled in
 * where the reply says `rules`: a rule created (`store1`) beside the others (`store2`); a rule
 * deleted (`store1`) and the others; or the rules only. `expects` holds for a delete when the rule
 * was there to delete: otherwise nothing of the statement stays, and the usual way refuses it.
 */
export function bankRuleAlone(orgId: number, change: BankRuleChange): Pick<OneStatementWrite, 'parts' | 'expects' | 'fills'> {
  const others = (except?: number) => ({
    sql: `select ${RULE_COLUMNS} from bank_rules where org_id = ?${except === undefined ? '' : ' and id <> ?'}`,
    bindings: except === undefined ? [orgId] : [orgId, except],
  });
  if (change.kind === 'create') {
    const r = change.rule;
    return {
      parts: [
        {
          sql: `insert into bank_rules (org_id, name, match_text, match_iban, partner_id, account) values (?, ?, ?, ?, ?, ?)
                returning ${RULE_COLUMNS}`,
          bindings: [orgId, r.name, r.match_text, r.match_iban, r.partner_id, r.account],
        },
        others(),
      ],
      fills: [{ key: 'rules', sql: rulesOf('store1', 'store2') }],
    };
  }
  if (change.kind === 'delete')
    return {
      parts: [
        { sql: 'delete from bank_rules where org_id = ? and id = ? returning id', bindings: [orgId, change.ruleId] },
        others(change.ruleId),
      ],
      expects: '(select count(*) from store1) = 1',
      fills: [{ key: 'rules', sql: rulesOf('store2') }],
    };
  return { parts: [others()], fills: [{ key: 'rules', sql: rulesOf('store1') }] };
}

export async function insertRule(db: Knex, orgId: number, rule: Omit<RuleRow, 'id'>): Promise<void> {
  await db('bank_rules').insert({ org_id: orgId, ...rule });
}

/** Deletes a rule of the organization; false when it has none by that id. */
export async function deleteRule(db: Knex, orgId: number, id: number): Promise<boolean> {
  return (await db('bank_rules').where({ org_id: orgId, id }).del()) > 0;
}

/**
 * The bank accounts as a reconciliation reads them as of a day: per IBAN, its first statement
 * (where the books start from) and its last one dated on or before the day.
 */
export async function statementsAsOf(db: Knex, orgId: number, asOf: string): Promise<Array<{ first: StatementRow; last: StatementRow }>> {
  const rows = await db<StatementRow>('bank_statements').where({ org_id: orgId }).orderBy('id');
  const byIban = new Map<string, { first: StatementRow; last?: StatementRow }>();
  for (const row of rows) {
    const account = byIban.get(row.iban) ?? { first: row };
    byIban.set(row.iban, account);
    const date = formatDate(row.statement_date);
    if (date !== null && date <= asOf) account.last = row;
  }
  return [...byIban.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .flatMap(([, a]) => (a.last ? [{ first: a.first, last: a.last }] : []));
}

/** The lines of an account's statements up to one (by import order) that are not reconciled, by id. */
export async function linesNotReconciled(db: Knex, orgId: number, iban: string, upToStatement: number): Promise<LineRow[]> {
  return db<LineRow>('bank_lines')
    .where({ org_id: orgId, iban })
    .where('statement_id', '<=', upToStatement)
    .whereIn('status', ['unmatched', 'suggested', 'ignored'])
    .orderBy('id');
}

/** A journal account's balance (debits less credits) over the entries dated on or before a day, exact decimal. */
export async function journalAccountBalance(db: Knex, orgId: number, account: string, asOf: string): Promise<string> {
  const row = (await db('journal_lines as l')
    .join('journal_entries as e', 'e.id', 'l.entry_id')
    .where({ 'e.org_id': orgId, 'l.account': account })
    .where('e.journaldate', '<=', asOf)
    .select(db.raw('coalesce(sum(l.debit), 0) - coalesce(sum(l.credit), 0) as balance'))
    .first()) as { balance: string | number };
  return String(row.balance);
}
