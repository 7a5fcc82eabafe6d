import { amountText, sum, type Dec } from '@bo/kernel';
import type { Knex, StorePart } from '@bo/runtime';
import { isBalanced, type JournalLine } from '../domain/journal';

/** An amount as the journal stores it: as exact as it came (the accounting currency may have three or four decimals). */
export function journalAmount(value: Dec): string {
  return amountText(value);
}

/** A journal entry's header as postEntry stores it. */
export interface EntryHeader {
  org_id: number;
  invoice_id: number | null;
  payment_id?: number | null;
  kind: string;
  journalname: string;
  journaldate: string;
  reference: string;
}

/**
 * The common table expressions that store a journal entry (`entry`, returning its id) and its
 * lines (`posted`), for a statement to go on from.
 */
export function entryCtes(entry: EntryHeader, lines: JournalLine[]): { sql: string; bindings: Knex.Value[] } {
  const header = entryHeader(entry, lines);
  const columns = Object.keys(header).filter((c) => header[c] !== undefined);
  return {
    sql: `entry as (insert into journal_entries (${columns.map(() => '??').join(', ')}) values (${columns.map(() => '?').join(', ')}) returning id)${
      lines.length ? `, posted as (${linesInsert('entry.id', 'entry, ', lines)})` : ''
    }`,
    bindings: [...columns, ...columns.map((c) => header[c] as Knex.Value), ...lineBindings(lines)],
  };
}

/**
 * A journal entry and its lines as parts of a store (storeWithCommit) under the id its load drew
 * (`id`): the entry, and its lines naming it, as two writes that read nothing of each other.
 */
export function entryParts(id: number, entry: EntryHeader, lines: JournalLine[]): StorePart[] {
  const header: Record<string, Knex.Value | undefined> = { id, ...entryHeader(entry, lines) };
  const columns = Object.keys(header).filter((c) => header[c] !== undefined);
  return [
    {
      sql: `insert into journal_entries (${columns.map(() => '??').join(', ')}) values (${columns.map(() => '?').join(', ')})`,
      bindings: [...columns, ...columns.map((c) => header[c] as Knex.Value)],
    },
    ...(lines.length ? [{ sql: linesInsert('?::int', '', lines), bindings: [id, ...lineBindings(lines)] }] : []),
  ];
}

/**
 * Journal entries and their lines as CTEs of one statement, each entry under an id the statement
 * draws: `drawn` (`seq`, `id`) names each entry by the `seq` it was given, for a later CTE to join
 * on. Several entries cost one statement, where postEntry costs one each.
 */
export function drawnEntriesCtes(entries: ReadonlyArray<{ seq: number; entry: EntryHeader; lines: JournalLine[] }>): {
  sql: string;
  bindings: Knex.Value[];
} {
  const headers = entries.map(({ seq, entry, lines }) => ({ seq, ...entryHeader(entry, lines) }));
  const lines = entries.flatMap(({ seq, lines }) => lines.map((l) => ({ seq, ...lineColumns(l) })));
  return {
    // Drawn in seq order, so the entries post in the order planned (the ledger replays by entry id).
    sql: `drawn as materialized (
            select s.seq, nextval(pg_get_serial_sequence('journal_entries', 'id'))::int as id
              from (select h.seq from jsonb_to_recordset(?::jsonb) as h(seq int) order by h.seq) s),
          drawn_entries as (
            insert into journal_entries (id, org_id, invoice_id, payment_id, kind, journalname, journaldate, reference, amount)
            select d.id, h.org_id, h.invoice_id, h.payment_id, h.kind, h.journalname, h.journaldate, h.reference, h.amount
              from jsonb_to_recordset(?::jsonb) as h(seq int, org_id int, invoice_id int, payment_id int, kind text, journalname text,
                                                     journaldate date, reference text, amount numeric)
              join drawn d on d.seq = h.seq),
          drawn_lines as (
            insert into journal_lines (entry_id, account, label, debit, credit, tax_category, tax_rate, tax_base)
            select d.id, l.account, l.label, l.debit, l.credit, l.tax_category, l.tax_rate, l.tax_base
              from rows from (jsonb_to_recordset(?::jsonb) as (seq int, account text, label text, debit numeric, credit numeric,
                                                               tax_category text, tax_rate numeric, tax_base numeric))
                   with ordinality as l(seq, account, label, debit, credit, tax_category, tax_rate, tax_base, ord)
              join drawn d on d.seq = l.seq
             order by d.seq, l.ord)`,
    bindings: [JSON.stringify(headers.map(({ seq }) => ({ seq }))), JSON.stringify(headers), JSON.stringify(lines)],
  };
}

/** An entry's header with its amount (what it debits): an unbalanced entry is a bug and never reaches the books. */
function entryHeader(entry: EntryHeader, lines: JournalLine[]): Record<string, Knex.Value | undefined> {
  if (!isBalanced(lines)) throw new Error(`journal entry for ${entry.reference} does not balance`);
  return { ...entry, amount: journalAmount(sum(lines.map((l) => l.debit))) };
}

function linesInsert(entryId: string, from: string, lines: JournalLine[]): string {
  const values = lines.map(() => '(?, ?, ?::numeric, ?::numeric, ?, ?::numeric, ?::numeric)').join(', ');
  return `insert into journal_lines (entry_id, account, label, debit, credit, tax_category, tax_rate, tax_base)
             select ${entryId}, l.* from ${from}(values ${values}) as l(account, label, debit, credit, tax_category, tax_rate, tax_base)`;
}

function lineBindings(lines: JournalLine[]): Knex.Value[] {
  return lines.flatMap((l) => Object.values(lineColumns(l)));
}

/** A line's columns as journal_lines stores them, in its column order after `entry_id`. */
function lineColumns(l: JournalLine) {
  return {
    account: l.account,
    label: l.label,
    debit: journalAmount(l.debit),
    credit: journalAmount(l.credit),
    tax_category: l.tax_category ?? null,
    tax_rate: l.tax_rate?.toFixed() ?? null,
    tax_base: l.tax_base ? journalAmount(l.tax_base) : null,
  };
}

/**
 * Stores a journal entry and its lines, a document's or a cash entry's (which may name a payment
 * instead of an invoice), in one statement: an entry is
 * posted by every validation and payment, and its lines need its id, which the statement hands them
 * itself instead of a round trip apart.
 */
export async function postEntry(trx: Knex.Transaction, entry: EntryHeader, lines: JournalLine[]): Promise<number> {
  const ctes = entryCtes(entry, lines);
  const { rows } = await trx.raw<{ rows: Array<{ id: number }> }>(`with ${ctes.sql} select id from entry`, ctes.bindings);
  // One row inserted, so exactly one returned.
  return (rows[0] as { id: number }).id;
}
