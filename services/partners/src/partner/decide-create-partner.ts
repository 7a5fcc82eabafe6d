import { partners, type RequestOf } from '@bo/contracts';
import { creditLimitRefusal, creditLimitNeedsCurrency } from './credit-limit';
import { STRUCTURED_ADDRESS, storedBankAccounts, structuredAddress, toPartnerRecord, type PartnerRow } from './partner.record';

export type CreatePartnerRequest = RequestOf<typeof partners.createPartner>;

/** What creating a partner decides on: the organization's currency, read only when the credit limit needs it. */
export interface CreatePartnerState {
  organizationCurrency: string | null;
}

/** The new partner's row as it is inserted; the table gives it its id, balances, version and times. */
export type NewPartnerRow = Omit<
  PartnerRow,
  | 'id'
  | 'balance'
  | 'receivable'
  | 'committed'
  | 'version'
  | 'created_at'
  | 'updated_at'
  | 'deleted_at'
  | 'bank_accounts'
  | (typeof STRUCTURED_ADDRESS)[number]
> &
  ReturnType<typeof structuredAddress> & { bank_accounts: string; created_by: string | null; updated_by: string | null };

/** Whether the decision needs the organization's currency (a credit limit finer than cents, of a partner without its own). */
export function createPartnerNeedsOrganizationCurrency(req: Pick<CreatePartnerRequest, 'credit_limit' | 'currency'>): boolean {
  return creditLimitNeedsCurrency(req.credit_limit, req.currency);
}

/**
 * Decides a new partner: its credit limit must fit the minor unit of the currency its balance is
 * kept in (credit-limit.ts); the display name defaults to the name, an empty e-mail is none, the
 * structured address is trimmed, and the partner starts undunned with a limit of 0 unless given.
 */
export function decideCreatePartner(
  req: CreatePartnerRequest,
  ctx: { orgId: number; userId?: string | null },
  state: CreatePartnerState,
): NewPartnerRow {
  const refusal = creditLimitRefusal(req.credit_limit, req.currency ?? state.organizationCurrency);
  if (refusal) throw refusal;
  return {
    org_id: ctx.orgId,
    partnername: req.partnername,
    display_name: req.display_name?.trim() || req.partnername,
    partner_type: req.partner_type,
    email: req.email || null,
    phone: req.phone ?? null,
    address: req.address ?? null,
    ...structuredAddress(req),
    tax_number: req.tax_number ?? null,
    credit_limit: req.credit_limit ?? '0',
    currency: req.currency ?? null,
    payment_terms: req.payment_terms ?? null,
    contact_person: req.contact_person ?? null,
    notes: req.notes ?? null,
    peppol_id: req.peppol_id ?? null,
    bank_accounts: storedBankAccounts(req.bank_accounts ?? []),
    dunning_blocked: req.dunning_blocked ?? false,
    created_by: ctx.userId ?? null,
    updated_by: ctx.userId ?? null,
  };
}

/**
 * The row as the table stores an insert of `row` at `now` under `id`: its balances 0, version 1,
 * an address part not given null. What a one-statement create answers without reading it back.
 */
export function asStoredPartner(row: NewPartnerRow, id: number, now: Date): PartnerRow {
  const { created_by: _created, updated_by: _updated, bank_accounts, ...fields } = row;
  return {
    address_line1: null,
    address_line2: null,
    city: null,
    postal_code: null,
    region: null,
    country: null,
    ...fields,
    id,
    balance: '0',
    receivable: '0',
    committed: '0',
    version: 1,
    bank_accounts: JSON.parse(bank_accounts) as PartnerRow['bank_accounts'],
    created_at: now,
    updated_at: now,
    deleted_at: null,
  };
}

/** The reply, and the `partners.partner.created` event's record, from the row as stored. */
export function partnerCreated(row: PartnerRow): { message: string; partner: partners.PartnerRecord } {
  return { message: 'Partner created successfully', partner: toPartnerRecord(row) };
}
