import type { QuotationRow } from '../quotation/quotation.record';
import { decideClaim, freezeOf, type ClaimClock, type Driver } from './decide-claim';

/** An accepted quotation with two lines, valid until the end of the year, never converted. */
const open = {
  id: 5,
  org_id: 1,
  quotation_number: 'QUO-00005',
  status: 'accepted',
  valid_until: '2026-12-31',
  line_count: 2,
  invoicenumber: null,
  convert_key: null,
  conversion_attempted_at: null,
  convert_invoicetype: null,
  convert_user: null,
  conversion_attempts: 0,
  conversion_lease_until: null,
  converted_invoice: null,
} as unknown as QuotationRow;

const NOW = Date.parse('2026-11-29T12:00:00Z');
const RPC_TIMEOUT_MS = 10_000;
const clock: ClaimClock = { today: '2026-11-29', leaseLive: false, nowMs: NOW, rpcTimeoutMs: RPC_TIMEOUT_MS };
const client: Driver = { operationKey: 'key-1', actor: 'u1' };

/** The quotation as an attempt of `key-1` by u7 left it frozen, its lease ending `leaseEndsAgoMs` before now. */
const frozenBy = (leaseEndsAgoMs: number): QuotationRow => ({
  ...open,
  conversion_attempted_at: new Date(NOW - 60_000),
  convert_key: 'key-1',
  convert_invoicetype: 'invoiceout',
  convert_user: 'u7',
  conversion_attempts: 1,
  conversion_lease_until: new Date(NOW - leaseEndsAgoMs),
});

const invoice = {
  id: 70,
  orgid: 1,
  invoicenumber: 'INV-00070',
  invoicetype: 'invoiceout',
  partner: '3',
  invoicestatus: 'draft',
  subtotal: 100,
  tax_amount: 21,
  invoicetotal: 121,
} as const;
const converted = { ...frozenBy(5_000), status: 'converted', invoicenumber: 'INV-00070', converted_invoice: invoice } as QuotationRow;

describe('deciding the claim of a conversion', () => {
  it('given an open quotation, when a client converts it, then the attempt freezes it under the client’s key, as attempt 1', () => {
    expect(decideClaim(open, clock, 'invoiceout', client)).toEqual({
      claim: {
        froze: true,
        earlierSettled: true,
        convert_key: 'key-1',
        convert_invoicetype: 'invoiceout',
        convert_user: 'u1',
        conversion_attempts: 1,
      },
    });
  });

  it('given a converted quotation, when the command that converted it asks again, then it gets its invoice', () => {
    expect(decideClaim(converted, clock, 'invoiceout', client)).toEqual({
      answer: { message: 'Quotation QUO-00005 converted to invoice INV-00070', invoice },
    });
  });

  it('given a converted quotation, when another command converts it, then it is refused naming the invoice', () => {
    expect(() => decideClaim(converted, clock, 'invoiceout', { operationKey: 'key-2', actor: 'u1' })).toThrow(
      expect.objectContaining({
        refusal: 'conversion.alreadyConverted',
        status: 400,
        message: 'Quotation QUO-00005 is already converted to invoice INV-00070; a quotation converts once',
      }),
    );
    // The recovery task has no key: it is never the command that converted.
    expect(() => decideClaim(converted, clock, 'invoiceout', { actor: null })).toThrow(
      expect.objectContaining({ refusal: 'conversion.alreadyConverted' }),
    );
  });

  it('given a frozen quotation whose attempt still holds its lease, when another command converts it, then it is refused for now', () => {
    const other = { operationKey: 'key-2', actor: 'u1' };
    expect(() => decideClaim(frozenBy(-5_000), { ...clock, leaseLive: true }, 'invoiceout', other)).toThrow(
      expect.objectContaining({ refusal: 'conversion.heldByAnotherRequest', transient: true }),
    );
  });

  it('given a frozen quotation whose lease runs, when the command that froze it retries, then it resumes that conversion', () => {
    const decided = decideClaim(frozenBy(-5_000), { ...clock, leaseLive: true }, 'invoiceout', client);
    // Resumed, not frozen again: the key and user of the attempt that froze it stay; the number moves on.
    expect(decided).toEqual({
      claim: {
        froze: false,
        earlierSettled: false,
        convert_key: 'key-1',
        convert_invoicetype: 'invoiceout',
        convert_user: 'u7',
        conversion_attempts: 2,
      },
    });
  });

  it('given a frozen quotation whose lease ended, when any command converts it, then it resumes, its invoice type kept', () => {
    const decided = decideClaim(frozenBy(1_000), clock, 'invoiceout', { operationKey: 'key-2', actor: 'u2' });
    expect(decided).toMatchObject({ claim: { froze: false, convert_key: 'key-1', convert_user: 'u7', conversion_attempts: 2 } });
  });

  it('given a frozen quotation asked for another invoice type, when converted, then it is refused until that conversion ends', () => {
    expect(() => decideClaim(frozenBy(1_000), clock, 'invoicein', client)).toThrow(
      expect.objectContaining({
        refusal: 'conversion.otherInvoiceTypeUnderWay',
        transient: true,
        message: expect.stringContaining('convert it with that invoicetype'),
      }),
    );
  });

  it('given a frozen quotation past its validity, when its command retries, then it resumes: it may hold an invoice already', () => {
    expect(decideClaim(frozenBy(1_000), { ...clock, today: '2027-02-01' }, 'invoiceout', client)).toMatchObject({
      claim: { froze: false },
    });
  });

  it('given an open quotation past its validity, or cancelled, when converted, then it is refused in its status', () => {
    expect(() => decideClaim({ ...open, status: 'sent' }, { ...clock, today: '2027-01-01' }, 'invoiceout', client)).toThrow(
      expect.objectContaining({ refusal: 'quotation.refusedInStatus', message: expect.stringContaining('expired') }),
    );
    expect(() => decideClaim({ ...open, status: 'cancelled' }, clock, 'invoiceout', client)).toThrow(
      expect.objectContaining({ refusal: 'quotation.refusedInStatus', message: expect.stringContaining('cancelled') }),
    );
  });

  it('given an open quotation without lines, when converted, then it is refused: it makes no invoice', () => {
    expect(() => decideClaim({ ...open, line_count: 0 }, clock, 'invoiceout', client)).toThrow(
      expect.objectContaining({
        refusal: 'conversion.quotationWithoutLines',
        message: 'Quotation QUO-00005 has no lines; add a line before converting it',
      }),
    );
  });
});

describe('the attempt a claim takes (freezeOf)', () => {
  it('weighs whether an earlier attempt may still commit an invoice by its lease and the RPC timeout', () => {
    const at = { nowMs: NOW, rpcTimeoutMs: RPC_TIMEOUT_MS };
    // Ended more than a timeout ago: nothing of it can still commit.
    expect(freezeOf(frozenBy(RPC_TIMEOUT_MS + 1), 'invoiceout', client, at).earlierSettled).toBe(true);
    // Ended within the timeout: a request inside invoicing may still commit before its deadline.
    expect(freezeOf(frozenBy(RPC_TIMEOUT_MS - 1), 'invoiceout', client, at).earlierSettled).toBe(false);
    // No lease at all (an older freeze, or released by an attempt that ended): settled.
    expect(freezeOf({ ...frozenBy(0), conversion_lease_until: null }, 'invoiceout', client, at).earlierSettled).toBe(true);
  });

  it('for the recovery task (no key, no user), keeps who froze it', () => {
    expect(freezeOf(frozenBy(60_000), 'invoiceout', { actor: null }, { nowMs: NOW, rpcTimeoutMs: RPC_TIMEOUT_MS })).toMatchObject({
      convert_key: 'key-1',
      convert_user: 'u7',
      froze: false,
    });
    expect(freezeOf(open, 'invoiceout', { actor: null }, { nowMs: NOW, rpcTimeoutMs: RPC_TIMEOUT_MS })).toMatchObject({
      convert_key: null,
      convert_user: null,
      froze: true,
    });
  });
});
