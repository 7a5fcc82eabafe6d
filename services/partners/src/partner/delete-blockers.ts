import type { partners } from '@bo/contracts';
import { amountText, dec, type DecimalLike } from '@bo/kernel';

type OpenDocuments = partners.OpenDocumentsReply;

/**
 * Why a partner cannot be deleted (docs/partners.md), or undefined when it can: money it owes or is
 * owed, documents still open in sales or invoicing, recurring contracts still billing it.
 */
export function deleteBlockers(partnerId: number, balance: DecimalLike, answers: readonly OpenDocuments[]): string | undefined {
  const reasons: string[] = [];
  if (!dec(balance).isZero()) reasons.push(`its balance is ${amountText(balance)}, not zero`);
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
