import { createHash } from 'node:crypto';
import { invoicing, organization } from '@bo/contracts';
import { dec, formatDate, sum } from '@bo/kernel';
import { AppError, handler, type Knex } from '@bo/runtime';
import { accountingCurrency } from '../exchange-rate/exchange-rate.repository';
import {
  autoreconciles,
  insertLines,
  insertStatement,
  lockAccount,
  matchContext,
  matchLine,
  naturalKey,
  previousStatement,
  sameStatement,
  setLineStatus,
  statementRecord,
  updateClosingBalance,
} from './bank.repository';
import { bankRefusals } from './bank-refusals';
import { parseCamt053 } from './camt053';
import { parseCsv } from './csv';
import { decideImport, type ImportedLine } from './import-decision';
import { parseMt940 } from './mt940';
import { transferOfLine } from './payment-files';
import { BANK_JOURNAL, reconcileLine } from './reconcile';
import { normalizeIban, StatementError, type ParsedStatement } from './statement';

function decodeContent(base64: string): string {
  if (!/^[A-Za-z0-9+/\s]*={0,2}\s*$/.test(base64)) throw bankRefusals.contentNotBase64();
  return Buffer.from(base64, 'base64').toString('utf8');
}

/**
 * Imports one bank statement of the organization's bank account (its profile's IBAN): the file is
 * parsed (bounded, no entities), refused if it was imported before (409 `duplicate_statement`) or
 * if its opening balance is not where the account's previous statement closed; its lines are
 * stored once by their natural key; each line whose structured reference names an open document
 * is reconciled at once (the organization's `bank_autoreconcile`, or the import's `autoreconcile`), every other one is marked suggested
 * when it has candidates, else unmatched. Imports of one account are serialized.
 *
 * Decided: an import stays a transaction (`apply` only), not one statement as a rule. What it decides
 * on cannot all be held by one statement's guards:
 * - The account's statements are a chain (each opens where the previous closed, none imported twice),
 *   held by the account's advisory lock (lockAccount) taken before the previous statement is read. A
 *   single statement's snapshot is taken before any lock it takes, and a statement another import
 *   inserts meanwhile changes no row this one read, so no xmin check sees it: a guard could touch the
 *   previous statement's row, but an account's first statement has none, and a row per account (or a
 *   function that locks and reads afresh, as organization_settings_held does) is a migration.
 * - The lines an import reconciles read what the line before settled: two lines paying one document
 *   are decided one after the other, and one statement can neither decide the second on the first's
 *   result nor update the document's row twice.
 * - Each reconciled line is a payment decided on create-payment's own load (the line's day, its
 *   documents, ids drawn per payment), so one statement would compose a renumbered
 *   storeNewPaymentAlone per line, beside the statement, its lines and every line's status.
 * Each line is reconciled the locked way (reconcileLine, decideReconcile: the same decision a reconcile
 * by hand stores as one statement).
 */
export const importStatementHandler = handler(invoicing.importStatement, {
  gather: async (req, ctx) => {
    const profile = await ctx.call(organization.getProfile, {}, { what: "the organization's bank account" });
    return { iban: normalizeIban(profile.organization.iban ?? null) };
  },
  apply: async (req, ctx, { iban }) => {
    const db = ctx.db;
    const journalIban = normalizeIban(req.journal);
    if (!iban || journalIban !== iban) throw bankRefusals.journalNotOrganizationAccount(req.journal, iban);
    const statements = await parse(req, db, ctx.orgId);
    if (statements.length !== 1) throw bankRefusals.notOneStatement(statements.length);
    const statement = statements[0]!;
    if (statement.iban && statement.iban !== iban) throw bankRefusals.statementOfOtherAccount(statement.iban, iban);
    await lockAccount(db, ctx.orgId, iban);
    const same = await sameStatement(db, ctx.orgId, iban, statement.statement_id, statement.sequence);
    if (same) {
      throw new AppError(
        409,
        'duplicate_statement',
        `Statement ${statement.statement_id} of ${iban} was imported before (statement ${same.id})`,
      );
    }
    const previous = await previousStatement(db, ctx.orgId, iban);
    if (previous && !dec(previous.closing_balance).eq(dec(statement.opening_balance))) {
      const gap = dec(statement.opening_balance).minus(dec(previous.closing_balance));
      throw bankRefusals.openingBalanceGap(
        dec(statement.opening_balance).toFixed(2),
        previous.statement_id,
        iban,
        dec(previous.closing_balance).toFixed(2),
        gap.toFixed(2),
      );
    }
    let stored = await insertStatement(db, ctx.orgId, { journal: BANK_JOURNAL, iban, format: req.format, statement });
    const seen = new Set<string>();
    const fresh = statement.lines
      .map((l) => ({ line: l, key: naturalKey(l) }))
      .filter(({ key }) => (seen.has(key) ? false : (seen.add(key), true)));
    const rows = await insertLines(db, ctx.orgId, stored, fresh);
    if (req.format === 'csv') {
      // A CSV states no closing balance: it is the opening plus the lines stored (a repeated line is one booking).
      const closing = dec(statement.opening_balance).plus(sum(rows.map((r) => dec(r.amount))));
      stored = await updateClosingBalance(db, stored.id, closing.toFixed());
    }
    const autoreconcile = req.autoreconcile ?? (await autoreconciles(db, ctx.orgId));
    const context = await matchContext(db, ctx.orgId);
    const imported: ImportedLine[] = [];
    for (const row of rows)
      imported.push({ line: matchLine(row), date: formatDate(row.booking_date) ?? '', transfer: await transferOfLine(db, ctx.orgId, row) });
    const decisions = decideImport(imported, context, autoreconcile);
    const counts = { reconciled: 0, suggested: 0, unmatched: 0 };
    for (const [i, row] of rows.entries()) {
      const decision = decisions[i]!;
      if (decision.kind === 'reconcile') {
        await reconcileLine(
          ctx,
          {
            line_id: row.id,
            partner: decision.partner,
            allocations: [{ invoice_id: decision.invoice_id, amount: decision.amount.toFixed() }],
          },
          'at once',
        );
        counts.reconciled++;
      } else {
        await setLineStatus(db, row.id, decision.status);
        counts[decision.status]++;
      }
    }
    return {
      message: `Statement ${statement.statement_id} imported: ${rows.length} line(s), ${counts.reconciled} reconciled, ${counts.suggested} suggested, ${counts.unmatched} unmatched`,
      statement: statementRecord(stored),
      lines: rows.length,
      duplicate_lines: statement.lines.length - rows.length,
      ...counts,
    };
  },
});

async function parse(req: invoicing.ImportStatementRequest, db: Knex, orgId: number): Promise<ParsedStatement[]> {
  const content = decodeContent(req.content_base64);
  try {
    if (req.format === 'camt053') return parseCamt053(content);
    if (req.format === 'mt940') return parseMt940(content);
    if (!req.mapping) throw bankRefusals.csvMappingRequired();
    const currency = req.currency ?? (await accountingCurrency(db, orgId));
    if (!currency) throw bankRefusals.csvCurrencyRequired();
    const lines = parseCsv(content, req.mapping, currency);
    // A CSV carries no balances: it continues the account's previous statement.
    const previous = await previousStatement(db, orgId, normalizeIban(req.journal) ?? '');
    const opening = dec(previous?.closing_balance ?? 0);
    const dates = lines.map((l) => l.booking_date).sort();
    return [
      {
        statement_id: req.statement_id ?? `csv-${createHash('sha256').update(content).digest('hex').slice(0, 24)}`,
        sequence: null,
        iban: null,
        currency,
        opening_balance: opening.toFixed(),
        opening_date: dates[0] ?? null,
        closing_balance: opening.plus(sum(lines.map((l) => dec(l.amount)))).toFixed(),
        closing_date: dates[dates.length - 1] ?? null,
        lines,
      },
    ];
  } catch (err) {
    if (err instanceof StatementError) throw bankRefusals.statementUnreadable(err.message);
    throw err;
  }
}
