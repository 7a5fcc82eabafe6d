import { partners, type RequestOf } from '@bo/contracts';
import { dec, formatDate, toNumber } from '@bo/kernel';
import { handler, type Knex } from '@bo/runtime';
import { creditOf } from './partner.record';
import { findLivePartner, openCommitmentsOf, transactionsOf, weighedBalanceOf } from './partner.repository';

export const partnerBalanceHandler = handler(partners.partnerBalance, (req, ctx) =>
  // One snapshot for the partner, its balances and its transactions, so they always add up to each other.
  ctx.db.transaction(async (trx) => balanceView(trx, req, ctx.orgId), { isolationLevel: 'repeatable read', readOnly: true }),
);

async function balanceView(db: Knex, req: RequestOf<typeof partners.partnerBalance>, orgId: number) {
  const row = await findLivePartner(db, orgId, req.partner_id);
  const weighed = await weighedBalanceOf(db, row);
  const credit = creditOf(row, weighed);
  const partner = {
    id: row.id,
    partnername: row.partnername,
    display_name: row.display_name,
    email: row.email,
    phone: row.phone,
    balance: credit.balance,
    receivable: credit.receivable,
    committed: toNumber(weighed.committed),
    credit_limit: credit.credit_limit,
    available_credit: credit.available_credit,
    // What the partner will owe as a customer: its vendor side neither adds nor takes off.
    exposure: toNumber(weighed.receivable.plus(weighed.committed)),
    currency: row.currency,
    balances: weighed.balances,
  };
  if (!req.include_transactions) return { message: 'Partner balance retrieved successfully', partner };
  // A document's paid amount is the sum of the rows that settle it; any other row is paid in full by itself.
  const rows = await transactionsOf(db, orgId, row.id);
  const posted = rows.map((t) => ({
    id: t.id,
    type: t.type,
    document_number: t.document_number,
    date: formatDate(t.date) as string,
    amount: toNumber(t.amount),
    paid: toNumber(t.paid),
    due: toNumber(dec(t.amount).minus(dec(t.paid))),
  }));
  // What `committed` is made of: each open commitment (a converted quotation whose invoice is not
  // validated or cancelled yet), its id the quotation's and its number the quotation's.
  const open = await openCommitmentsOf(db, orgId, row.id);
  const commitments = open.map((c) => ({
    id: c.quotation_id ?? c.invoice_id,
    type: 'commitment' as const,
    document_number: c.quotation_number ?? '',
    date: formatDate(c.created_at) as string,
    amount: toNumber(c.amount),
    paid: 0,
    due: toNumber(c.amount),
  }));
  return { message: 'Partner balance retrieved successfully', partner, transactions: [...posted, ...commitments] };
}
