import type { partners } from '@bo/contracts';
import { amountText, dec, Money, type DecimalLike } from '@bo/kernel';
import { partnerRefusals } from './partner-refusals';

type OpenDocuments = partners.OpenDocumentsReply;

/**
 * Why a partner cannot be deleted (docs/partners.md), or undefined when it can: money it owes or is
 * owed, documents still open in sales or invoicing, recurring contracts still billing it.
 */
export function deleteBlockers(
  partnerId: number,
  balances: ReadonlyArray<{ currency: string; balance: DecimalLike }>,
  answers: readonly OpenDocuments[],
): string | undefined {
  const reasons: string[] = [];
  // Per currency: 620 EUR owed and 100,000 JPY of credit do not make nothing.
  const owed = balances.filter((b) => !dec(b.balance).isZero());
  if (owed.length === 1) reasons.push(`its balance is ${amountText(owed[0]!.balance)}, not zero`);
  if (owed.length > 1)
    reasons.push(
      `its balance is ${owed.map((b) => (b.currency ? Money.of(b.balance, b.currency).toString() : amountText(b.balance))).join(' and ')}, not zero`,
    );
  const documents = answers.flatMap((a) => a.documents);
  const openCount = answers.reduce((n, a) => n + a.open_documents, 0);
  const contractCount = answers.reduce((n, a) => n + a.active_contracts, 0);
  const listed = (kind: string) => documents.filter((d) => d.kind === kind).map((d) => `${d.number} (${d.status})`);
  if (openCount > 0) {
    const names = [...listed('quotation'), ...listed('invoice')];
    const more = openCount > names.length ? ` and ${openCount - names.length} more` : '';
    reasons.push(`it has ${openCount} open document${openCount === 1 ? '' : 's'}: ${names.join(', ')}${more}`);
  }
  if (contractCount > 0) {
    const names = listed('recurring_contract');
    const more = contractCount > names.length ? ` and ${contractCount - names.length} more` : '';
    reasons.push(`it has ${contractCount} active recurring contract${contractCount === 1 ? '' : 's'}: ${names.join(', ')}${more}`);
  }
  return reasons.length ? `Partner ${partnerId} cannot be deleted: ${reasons.join('; ')}` : undefined;
}

/**
 * A partner's delete decided on the partner as found (null: not there, or deleted already), its
 * balances and what each document service answered: `delete`, or it throws the refusal.
 */
export function decidePartnerDelete(
  partnerId: number,
  found: { balances: ReadonlyArray<{ currency: string; balance: DecimalLike }> } | null,
  answers: readonly OpenDocuments[],
): 'delete' {
  if (!found) throw partnerRefusals.partnerNotFound(partnerId);
  const blocked = deleteBlockers(partnerId, found.balances, answers);
  if (blocked) throw partnerRefusals.deleteBlocked(blocked);
  return 'delete';
}
