import type { ReplyOf, invoicing } from '@bo/contracts';
import type { DunningDecision } from './decide-dunning';
import { planRecord, type DunningRunAsRead, type LetterToStore } from './dunning.repository';

/**
 * The run as read, narrowed to the invoices of `partners` (each partner the run asked about), each
 * marked as its partner's `blocked` says: what the partners service answered after the read.
 */
export function readWithPartners(read: DunningRunAsRead, partners: ReadonlyMap<number, { blocked: boolean }>): DunningRunAsRead {
  return {
    ...read,
    invoices: read.invoices
      .filter((i) => partners.has(i.partner_id))
      .map((i) => ({ ...i, partner_blocked: partners.get(i.partner_id)!.blocked })),
  };
}

/**
 * The letters of a run decided on an unlocked read (decideDunning on readDunningRun) that one
 * statement stores (lettersAlone), each with the id drawn for it and its invoice's xmin as read, in
 * the decision's order; undefined when the run goes the locked way instead: a letter that carries a
 * fee invoice (its invoice made by the invoice writer and posted by validate's code, too composite
 * for one statement), or fewer ids drawn than letters decided, or a letter of an invoice not read.
 */
export function lettersToStore(
  decision: DunningDecision,
  drawn: readonly number[],
  reads: ReadonlyMap<number, string>,
): LetterToStore[] | undefined {
  if (decision.letters.some((l) => l.fee_invoice !== null) || decision.letters.length > drawn.length) return undefined;
  const letters: LetterToStore[] = [];
  for (const [i, plan] of decision.letters.entries()) {
    const read = reads.get(plan.invoice_id);
    if (read === undefined) return undefined;
    letters.push({ id: drawn[i]!, plan, read });
  }
  return letters;
}

/** The letters stored as one statement, as the reply and their `invoicing.dunning.sent` events show them: with their ids, no fee invoice. */
export function storedRecords(letters: readonly LetterToStore[], asOf: string): Array<invoicing.DunningLetterRecord & { id: number }> {
  return letters.map(({ id, plan }) => ({ ...planRecord(plan, asOf), id }));
}

/** A run's reply: the letters sent (or, `dryRun`, that would be), and the invoices skipped. */
export function runReply(
  asOf: string,
  dryRun: boolean,
  letters: invoicing.DunningLetterRecord[],
  skipped: DunningDecision['skipped'],
): ReplyOf<typeof invoicing.dunningRun> {
  return {
    message: `${letters.length} reminder letter(s) ${dryRun ? 'would be sent' : 'sent'} as of ${asOf}`,
    as_of: asOf,
    dry_run: dryRun,
    letters,
    skipped,
  };
}
