import { buildCreditorReference, isValidCreditorReference, type Dec } from '@bo/kernel';

/**
 * Which open documents and rules a bank line may be, and why (pure; docs/bank.md "Matching").
 * Nothing is guessed: a line is reconciled on import only when its structured reference names
 * exactly one open document of the side its money moved, of the currency, whose partner is not
 * contradicted by the payer's known IBAN, and the amount is at most what is due. Everything else
 * is a suggestion with its reasons, for a person to confirm.
 */
export type Reason = 'reference' | 'amount' | 'partner_iban' | 'invoice_number' | 'rule';

export const REASON_WEIGHTS: Record<Reason, number> = { reference: 60, invoice_number: 40, partner_iban: 30, amount: 25, rule: 20 };

export interface MatchLine {
  amount: Dec;
  currency: string;
  structured_reference: string | null;
  remittance_text: string | null;
  end_to_end_id: string | null;
  counterparty_name: string | null;
  counterparty_iban: string | null;
}

export interface OpenDocument {
  id: number;
  invoicenumber: string;
  invoicetype: string;
  partner_id: number;
  currency: string;
  due: Dec;
  /** The document's date (`YYYY-MM-DD`): no payment of it is dated before (domain/dating.ts). */
  date: string;
  /** The document's structured payment reference (ISO 11649), when it has one. */
  payment_reference: string | null;
}

export interface MatchRule {
  id: number;
  match_text: string | null;
  match_iban: string | null;
  partner_id: number | null;
  account: string | null;
}

export interface Candidate {
  invoice_id: number | null;
  invoicenumber: string | null;
  partner: number | null;
  account: string | null;
  amount_due: Dec | null;
  score: number;
  reasons: Reason[];
}

const alnum = (value: string) => value.replace(/[^A-Za-z0-9]/g, '').toUpperCase();

/** The ISO 11649 creditor reference of a document's number (`RF`, check digits, the number's first 21 letters and digits): a customer may build one from the number printed. */
export function creditorReferenceOf(number: string): string {
  return buildCreditorReference(alnum(number).slice(0, 21) || '0');
}

/** The references a line quotes: its structured one, and any valid RF reference in its texts. */
export function quotedReferences(line: MatchLine): string[] {
  const found = new Set<string>();
  if (line.structured_reference) found.add(alnum(line.structured_reference));
  for (const text of [line.remittance_text, line.end_to_end_id]) {
    for (const m of (text ?? '').toUpperCase().matchAll(/RF\d{2}(?:\s?[A-Z0-9]){1,21}/g)) {
      const ref = alnum(m[0]);
      if (isValidCreditorReference(ref)) found.add(ref);
    }
  }
  return [...found];
}

/** Whether a quoted reference names the document: its payment reference, its number's RF reference, or its number. */
export function referenceNames(ref: string, doc: OpenDocument): boolean {
  return (
    (doc.payment_reference !== null && alnum(doc.payment_reference) === ref) ||
    creditorReferenceOf(doc.invoicenumber) === ref ||
    alnum(doc.invoicenumber) === ref
  );
}

function textNames(line: MatchLine, doc: OpenDocument): boolean {
  const number = alnum(doc.invoicenumber);
  if (number.length < 3) return false;
  const texts = [line.remittance_text, line.end_to_end_id].map((t) => alnum(t ?? ''));
  // A whole-word match on the number as written, or its letters and digits inside the text.
  return texts.some((t) => t.includes(number));
}

/** Money in settles customer invoices; money out, vendor bills. */
export function sideOf(amount: Dec): 'invoiceout' | 'invoicein' {
  return amount.isNegative() ? 'invoicein' : 'invoiceout';
}

export interface MatchContext {
  documents: readonly OpenDocument[];
  /** Partners known by IBAN: their bank accounts, rules naming an IBAN, and lines reconciled before. */
  partnersByIban: ReadonlyMap<string, number>;
  rules: readonly MatchRule[];
}

/**
 * Which partner each known IBAN names, weakest source first so a stronger one overrides it: the
 * payers of lines reconciled before, then the partners' own bank accounts, then rules naming an
 * IBAN and a partner. An IBAN two live partners both list names neither (a factoring company, a
 * shared group account): it proves nothing about which one paid.
 */
export function partnersByIbanOf(
  learned: ReadonlyArray<{ iban: string; partner_id: number }>,
  own: ReadonlyArray<{ iban: string; partner_id: number }>,
  rules: readonly MatchRule[],
): Map<string, number> {
  const byIban = new Map<string, number>();
  for (const l of learned) byIban.set(l.iban, l.partner_id);
  const owners = new Map<string, Set<number>>();
  for (const o of own) owners.set(o.iban, (owners.get(o.iban) ?? new Set()).add(o.partner_id));
  for (const [iban, partners] of owners) {
    if (partners.size === 1) byIban.set(iban, [...partners][0]!);
    else byIban.delete(iban);
  }
  for (const r of rules) if (r.match_iban && r.partner_id !== null) byIban.set(r.match_iban, r.partner_id);
  return byIban;
}

function ruleApplies(rule: MatchRule, line: MatchLine): boolean {
  if (rule.match_iban && rule.match_iban !== line.counterparty_iban) return false;
  if (rule.match_text) {
    const haystack = `${line.remittance_text ?? ''} ${line.counterparty_name ?? ''} ${line.end_to_end_id ?? ''}`.toLowerCase();
    if (!haystack.includes(rule.match_text.toLowerCase())) return false;
  }
  return !!(rule.match_iban || rule.match_text);
}

/** The line's candidates, best first (score, then the oldest document), at most `limit`. */
export function candidatesFor(line: MatchLine, ctx: MatchContext, limit = 10): Candidate[] {
  const side = sideOf(line.amount);
  const money = line.amount.abs();
  const refs = quotedReferences(line);
  const rules = ctx.rules.filter((r) => ruleApplies(r, line));
  const knownPartner = line.counterparty_iban ? ctx.partnersByIban.get(line.counterparty_iban) : undefined;
  const rulePartners = new Set(rules.map((r) => r.partner_id).filter((p): p is number => p !== null));
  const out: Candidate[] = [];
  for (const doc of ctx.documents) {
    if (doc.invoicetype !== side || doc.currency !== line.currency || doc.due.lte(0)) continue;
    const reasons: Reason[] = [];
    if (refs.some((r) => referenceNames(r, doc))) reasons.push('reference');
    if (money.eq(doc.due)) reasons.push('amount');
    if (knownPartner !== undefined && knownPartner === doc.partner_id) reasons.push('partner_iban');
    if (textNames(line, doc)) reasons.push('invoice_number');
    if (rulePartners.has(doc.partner_id)) reasons.push('rule');
    // An equal amount alone says little: it counts only beside another reason.
    if (!reasons.length || (reasons.length === 1 && reasons[0] === 'amount')) continue;
    out.push({
      invoice_id: doc.id,
      invoicenumber: doc.invoicenumber,
      partner: doc.partner_id,
      account: null,
      amount_due: doc.due,
      score: Math.min(
        100,
        reasons.reduce((s, r) => s + REASON_WEIGHTS[r], 0),
      ),
      reasons,
    });
  }
  for (const rule of rules) {
    if (rule.account) {
      out.push({
        invoice_id: null,
        invoicenumber: null,
        partner: rule.partner_id,
        account: rule.account,
        amount_due: null,
        score: REASON_WEIGHTS.rule,
        reasons: ['rule'],
      });
    }
  }
  return out.sort((a, b) => b.score - a.score || (a.invoice_id ?? Infinity) - (b.invoice_id ?? Infinity)).slice(0, limit);
}

/**
 * The document to reconcile the line with on import, or null: exactly one open document named by a
 * structured reference, of the line's side and currency, owing at least the line's amount, and no
 * known IBAN of another partner.
 */
export function automaticMatch(line: MatchLine, ctx: MatchContext): OpenDocument | null {
  const side = sideOf(line.amount);
  const refs = line.structured_reference ? [alnum(line.structured_reference)] : quotedReferences(line);
  if (!refs.length) return null;
  const named = ctx.documents.filter((d) => d.invoicetype === side && refs.some((r) => referenceNames(r, d)));
  if (named.length !== 1) return null;
  const doc = named[0]!;
  if (doc.currency !== line.currency || doc.due.lte(0) || line.amount.abs().gt(doc.due)) return null;
  const known = line.counterparty_iban ? ctx.partnersByIban.get(line.counterparty_iban) : undefined;
  if (known !== undefined && known !== doc.partner_id) return null;
  return doc;
}
