import { invoicing } from '@bo/contracts';
import { formatDate, formatDateTime, toNumber } from '@bo/kernel';
import {
  handler,
  recordEvent,
  statementEvent,
  unlessRefused,
  type ApplyContext,
  type HandlerContext,
  type Knex,
  type StoreMoment,
} from '@bo/runtime';
import { currentParties } from '@bo/billing';
import { findExchangeRate } from '../exchange-rate/exchange-rate.repository';
import { loadCreditExposure } from './credit-limit-check';
import { loadCreditedFacts, lockCreditedInvoice, productsNotStocked } from './credit-note-link';
import { settleCreditedInvoice } from './credit-note-settlement';
import {
  decideValidation,
  draftRefusal,
  needsTableRate,
  postedInvoice,
  validationCurrency,
  type ValidationDrawn,
  type ValidationEffects,
  type ValidationFacts,
  type ValidationState,
} from './decide-validation';
import { dueOf, eventRef, statusOf, type InvoiceRow } from './invoice.record';
import { hasCreditLimit } from '../domain/credit-limit';
import { loadDraft, readDraft, storeValidation, validationPartsAlone, type LoadedDraft } from './validation.repository';
import { invoiceRefusals } from './invoice-refusals';

export type { ValidationFacts } from './decide-validation';

/**
 * The draft is read with no lock, and the partner's credit and both parties' data (frozen with the
 * invoice) are asked of the partners service, before any lock is taken or connection held, so a
 * slow partners service cannot stall other writes or drain the pool. Then decide
 * (decide-validation.ts) → store, optimistic as a rule: on that read, stored as one statement
 * (`alone`) that holds the settings and writes the invoice only while both are as read. What must be
 * weighed under locks goes the usual way (`apply`, postInvoice): a credit note (it settles the
 * invoice it credits), a sale to a partner with a credit limit (checks for one partner run one at a
 * time), a draft moved meanwhile, a refusal.
 */
export const validateInvoiceHandler = handler(invoicing.validateInvoice, {
  gather: async (req, ctx) => {
    // Neither type nor partner of an invoice ever changes, so the unlocked read decides whether to ask.
    const draft = await readDraft(ctx.db, ctx.orgId, req.id);
    const facts = await validationFacts(ctx, draft.invoice, { id: draft.invoice.id }, req.override_credit_limit);
    return { ...facts, number: draft.invoice.invoicenumber, draft };
  },
  // It asks partners and catalog and reads: the store holds the operation key, no claim of its own
  // is written before.
  readOnlyGather: true,
  alone: async (_req, ctx, facts) => {
    const { draft } = facts;
    const state = await unlockedState(ctx, draft, facts, `invoice ${facts.number}`);
    const effects = state && unlessRefused(() => decideValidation(state));
    if (!state || !effects) return undefined;
    const posted = postedInvoice(state.invoice, effects, draft.drawn);
    const paid = effects.settled ? [statementEvent(invoicing.invoicePaid, ctx.orgId, paidEvent(posted))] : [];
    return {
      ...validationPartsAlone(state.invoice, effects, draft.drawn, draft.read),
      events: [statementEvent(invoicing.invoiceValidated, ctx.orgId, validatedEvent(state, effects, posted, draft.drawn.entryId)), ...paid],
      reply: validatedReply(postingReply(state, posted, posted, draft.drawn.entryId)),
    };
  },
  apply: async (req, ctx, facts) =>
    // The entry's id drawn with the draft's read, which the one statement did not use.
    validatedReply(
      await postInvoice(ctx, req.id, facts, `invoice ${facts.number}`, { store: 'with commit', drawnEntryId: facts.draft.drawn.entryId }),
    ),
});

function validatedReply(invoice: ReturnType<typeof postingReply>) {
  return { message: `Invoice ${invoice.invoicenumber} validated successfully`, invoice };
}

/**
 * What decideValidation decides on, from the unlocked read; undefined for a draft that must be
 * judged under locks (the handler's comment names them). A foreign draft with no rate of its own
 * reads the organization's, with no lock, as the locked way reads it.
 */
async function unlockedState(
  ctx: HandlerContext,
  draft: LoadedDraft,
  facts: ValidationFacts,
  named: string,
): Promise<ValidationState | undefined> {
  if (draft.invoice.credits_invoice_id !== null) return undefined;
  if (facts.checksCredit && (!facts.parties.credit || hasCreditLimit(facts.parties.credit.credit_limit))) return undefined;
  const state = draftState(draft, facts, named);
  if (draftRefusal(state, facts.invoiceDate)) return undefined;
  state.tableRate = await tableRateFor(ctx.db, state, null);
  return state;
}

/** The state a validation starts from: the draft as loaded, what was asked elsewhere, the books' policy; nothing more loaded yet. */
function draftState(loaded: LoadedDraft, facts: ValidationFacts, named: string, dateField?: string): ValidationState {
  const { settings, invoice, lines } = loaded;
  return {
    invoice,
    lines,
    lockDate: formatDate(settings.row?.lock_date ?? null),
    today: settings.today(),
    named,
    ...(dateField ? { dateField } : {}),
    facts,
    policy: settings.taxPolicy,
    credited: null,
    tableRate: null,
    exposure: null,
  };
}

/** The organization's rate for a foreign draft with none set aside (needsTableRate), else null. */
async function tableRateFor(db: Knex, state: ValidationState, credited: ValidationState['credited']): Promise<string | null> {
  const { invoice, facts, policy } = state;
  const currency = validationCurrency(invoice, credited, facts.parties);
  if (!needsTableRate(invoice, currency, policy.accounting_currency)) return null;
  return (await findExchangeRate(db, invoice.org_id, currency as string, facts.invoiceDate))?.rate ?? null;
}

/**
 * What validating a draft asks elsewhere: the partner's credit (a sale's, unless overridden), both
 * parties as they are now, and the products a restocking credit note returns that catalog keeps no
 * stock of. For a stored draft (the validate operation) or one an import is about to store (its
 * lines' products given), from the fields that never change on a draft: its type, partner and date.
 */
export async function validationFacts(
  ctx: HandlerContext,
  draft: Pick<InvoiceRow, 'invoicetype' | 'partner_id' | 'invoicedatetime' | 'credits_invoice_id' | 'restock'>,
  catalogLines: Parameters<typeof productsNotStocked>[2],
  overrideCreditLimit: boolean | undefined,
): Promise<ValidationFacts> {
  const checksCredit = needsCreditCheck(draft.invoicetype, overrideCreditLimit);
  const parties = await currentParties(ctx, draft.partner_id, { credit: checksCredit });
  if (checksCredit && !parties.credit) throw invoiceRefusals.partnerNotFound(draft.partner_id);
  const notStocked = [...(await productsNotStocked(ctx, draft, catalogLines))];
  return { checksCredit, parties, notStocked, invoiceDate: formatDate(draft.invoicedatetime) as string };
}

/**
 * Validates (posts) a draft or proforma with what validationFacts gathered, in the caller's
 * transaction: the validate operation, and an import with `validate: true` right after it stored its
 * bill, a reminder run right after it made a fee invoice. `named` is the invoice as the lock date's
 * refusal names it, `dateField` the request's field that dated it, if one did (ValidationDraft). Load → decide → store: the
 * settings held, the draft locked with its lines, and only for the drafts that need them the
 * credited invoice, the organization's rate and the partner's credit exposure (loadValidation);
 * decideValidation; then one statement for the posting (storeValidation), the events, and a credit
 * note's settlement of its invoice. The posting goes with the statement that commits when the caller
 * says nothing more in its transaction reads it (`store: 'with commit'`, the validate operation) and
 * the draft is no credit note, whose settlement reads it; else it is written at once. The posted
 * invoice as the validate operation answers it.
 */
export async function postInvoice(
  ctx: ApplyContext,
  id: number,
  facts: ValidationFacts,
  named: string,
  opts: { dateField?: string; store?: StoreMoment; drawnEntryId?: number } = {},
) {
  const { state, drawn } = await loadValidation(ctx.db, ctx.orgId, id, facts, named, opts);
  const effects = decideValidation(state);
  const store = opts.store === 'with commit' && !state.credited ? 'with commit' : 'at once';
  await storeValidation(ctx.db, state.invoice, effects, drawn.entryId, store);
  const posted = postedInvoice(state.invoice, effects, drawn);
  await recordEvent(ctx.db, invoicing.invoiceValidated, ctx.orgId, validatedEvent(state, effects, posted, drawn.entryId));
  if (effects.settled) await recordEvent(ctx.db, invoicing.invoicePaid, ctx.orgId, paidEvent(posted));
  // A credit note settles the invoice it credits first; only the rest is credit. After the note's
  // own event, so the partner ledger reads the note before the allocation that uses it.
  const answered = state.credited
    ? (await settleCreditedInvoice(ctx.db, ctx, posted, state.credited.invoice, state.policy.accounting_currency)).note
    : posted;
  return postingReply(state, posted, answered, drawn.entryId);
}

/** The validation's event: what catalog moves stock by and the partner ledger posts. */
function validatedEvent(state: ValidationState, effects: ValidationEffects, posted: InvoiceRow, journalEntryId: number) {
  return {
    ...eventRef(posted),
    journal_entry_id: journalEntryId,
    invoicedatetime: formatDateTime(posted.invoicedatetime) as string,
    invoicedue: formatDate(posted.invoicedue),
    validated_at: formatDateTime(posted.validated_at) as string,
    subtotal: toNumber(posted.subtotal),
    tax_amount: toNumber(posted.tax_amount),
    // Catalog moves stock by these (docs/design.md "stock follows documents"); a line never checked
    // against the catalog may name another product's id, so it moves nothing.
    lines: state.lines
      .filter((l) => l.catalog_checked)
      .map((l) => ({
        line_id: l.id,
        product_id: l.product_id,
        variant_id: l.variant_id,
        location_id: l.location_id,
        quantity: toNumber(l.quantity),
      })),
    restock: posted.restock,
    currency: effects.currency,
    accounting_total: effects.accountingTotal,
    trade_delta: effects.tradeDelta,
  };
}

/** A zero-total document is paid as it is posted. */
function paidEvent(posted: InvoiceRow) {
  return { ...eventRef(posted), paid_at: formatDateTime(posted.paid_at) as string };
}

/** The posted invoice as the validate operation answers it; `answered`: as a credit note's settlement left it. */
function postingReply(state: ValidationState, posted: InvoiceRow, answered: InvoiceRow, journalEntryId: number) {
  return {
    id: posted.id,
    invoicenumber: posted.invoicenumber,
    payment_reference: posted.payment_reference,
    invoicestatus: statusOf(answered, state.today),
    journal_entry_id: journalEntryId,
    invoicetotal: toNumber(posted.invoicetotal),
    due_amount: dueOf(answered),
  };
}

/**
 * Loads what decideValidation decides on. The lock date's row is read held first, as every posting
 * takes it before anything else, then the draft locked with its lines, in one statement (loadDraft). A draft
 * refused already (draftRefusal) loads nothing more; a credit note locks the invoice it credits
 * (lockCreditedInvoice) and reads what it is judged by; a foreign draft with no rate of its own
 * reads the organization's; a sale checked against a partner with a credit limit takes the
 * partner's credit lock and reads its exposure.
 */
async function loadValidation(
  trx: Knex.Transaction,
  orgId: number,
  id: number,
  facts: ValidationFacts,
  named: string,
  opts: { dateField?: string; drawnEntryId?: number },
): Promise<{ state: ValidationState; drawn: ValidationDrawn }> {
  // The settings are read held with the draft (loadDraft): no statement of their own.
  const loaded = await loadDraft(trx, orgId, id, opts.drawnEntryId);
  const state = draftState(loaded, facts, named, opts.dateField);
  const drawn = loaded.drawn;
  if (draftRefusal(state, facts.invoiceDate)) return { state, drawn };
  const creditedInvoice = await lockCreditedInvoice(trx, state.invoice);
  if (creditedInvoice) state.credited = await loadCreditedFacts(trx, state.invoice, creditedInvoice);
  state.tableRate = await tableRateFor(trx, state, state.credited);
  if (facts.checksCredit && facts.parties.credit) {
    state.exposure = await loadCreditExposure(trx, state.invoice, facts.parties.credit, {
      accounting: state.policy.accounting_currency,
      today: facts.invoiceDate,
    });
  }
  return { state, drawn };
}

/** Only a sale is checked against the partner's credit, and only unless the caller overrides it. */
function needsCreditCheck(type: string, override: boolean | undefined): boolean {
  return type === 'invoiceout' && !override;
}
