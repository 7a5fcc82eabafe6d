import type { partners, RequestOf } from '@bo/contracts';
import { weighBalances, type CurrencyBalanceRow } from '../ledger/currency-balances';
import { creditLimitRefusal } from './credit-limit';
import { partnerRefusals } from './partner-refusals';
import { storedBankAccounts, structuredAddress, toPartnerRecord, type PartnerRow } from './partner.record';

export type EditPartnerRequest = RequestOf<typeof partners.editPartner>;

/** What editing a partner decides on, read under the partner's lock (lockAndLoadPartner). */
export interface EditPartnerState {
  /** The live partner, null when the organization has none of that id. */
  current: PartnerRow | null;
  /** The organization's default currency, which a partner without its own keeps its balance in. */
  organizationCurrency: string | null;
  /** The partner's balances per currency (partner_balances), which its record's figures weigh. */
  balances: CurrencyBalanceRow[];
  /** The transaction's time: the partner's new updated_at. */
  now: Date;
}

/** The columns an edit writes, as the table takes them (bank accounts as their JSON text). */
export type PartnerChanges = Partial<Record<keyof PartnerRow, unknown>> & { updated_by: string | null };

export interface PartnerEdit {
  id: number;
  orgId: number;
  changes: PartnerChanges;
  /** The partner as the edit leaves it: the reply's and the `partners.partner.updated` event's record. */
  partner: partners.PartnerRecord;
}

const COPIED = [
  'partnername',
  'partner_type',
  'phone',
  'address',
  'tax_number',
  'credit_limit',
  'payment_terms',
  'contact_person',
  'notes',
  'peppol_id',
] as const;

/**
 * Decides an edit: the fields given replace the partner's (an empty e-mail clears it, the structured
 * address is trimmed, an empty display name falls back to the name), a credit limit must fit the
 * minor unit of the currency the partner's balance is kept in (the one it will have), a new currency
 * weighs the partner's balances again in it, and the version goes up by one.
 */
export function decideEditPartner(
  state: EditPartnerState,
  req: EditPartnerRequest,
  ctx: { orgId: number; userId?: string | null },
): PartnerEdit {
  const current = state.current;
  if (!current) throw partnerRefusals.partnerNotFound(req.partner_id);
  const currency = req.currency !== undefined ? req.currency : current.currency;
  const refusal = creditLimitRefusal(req.credit_limit, currency ?? state.organizationCurrency);
  if (refusal) throw refusal;
  const changes = requestedChanges(req, ctx);
  if (req.currency !== undefined) changes.currency = req.currency;
  if (req.currency !== undefined && req.currency !== current.currency) {
    // The record's figures are its balances weighed in its currency (decideRecordFigures): weighed again in the new one.
    const weighed = weighBalances(state.balances, req.currency, state.organizationCurrency);
    Object.assign(changes, {
      balance: weighed.balance.toFixed(),
      receivable: weighed.receivable.toFixed(),
      committed: weighed.committed.toFixed(),
    });
  }
  if (req.display_name !== undefined && !req.display_name.trim()) changes.display_name = req.partnername ?? current.partnername;
  const { updated_by: _by, ...fields } = changes;
  const after = {
    ...current,
    ...fields,
    ...(typeof changes.bank_accounts === 'string'
      ? { bank_accounts: JSON.parse(changes.bank_accounts) as PartnerRow['bank_accounts'] }
      : {}),
    version: current.version + 1,
    updated_at: state.now,
  } as PartnerRow;
  return { id: current.id, orgId: current.org_id, changes, partner: toPartnerRecord(after) };
}

/**
 * The columns an edit writes that the request alone decides: the fields given, an empty e-mail as
 * none, the structured address trimmed, the bank accounts as stored, a display name trimmed (a blank
 * one falls back to the name, which decideEditPartner settles).
 */
function requestedChanges(req: EditPartnerRequest, ctx: { userId?: string | null }): PartnerChanges {
  const changes: PartnerChanges = { updated_by: ctx.userId ?? null };
  for (const field of COPIED) if (req[field] !== undefined) changes[field] = req[field];
  if (req.email !== undefined) changes.email = req.email || null;
  Object.assign(changes, structuredAddress(req));
  if (req.bank_accounts !== undefined) changes.bank_accounts = storedBankAccounts(req.bank_accounts);
  if (req.dunning_blocked !== undefined) changes.dunning_blocked = req.dunning_blocked;
  if (req.display_name !== undefined) changes.display_name = req.display_name.trim();
  return changes;
}

/**
 * The columns of an edit the request alone decides (a one-statement edit), or undefined when the
 * partner as it is decides too: a credit limit (the currency its balance is kept in judges it), a
 * currency (the partner's balances are weighed again in it), a blank display name (the name it falls
 * back to).
 */
export function decideEditAlone(req: EditPartnerRequest, ctx: { userId?: string | null }): PartnerChanges | undefined {
  if (req.credit_limit !== undefined || req.currency !== undefined) return undefined;
  if (req.display_name !== undefined && !req.display_name.trim()) return undefined;
  return requestedChanges(req, ctx);
}
