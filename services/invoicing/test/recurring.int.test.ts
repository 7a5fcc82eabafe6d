import { today } from '@bo/kernel';
import { createLogger, filledIn, NotAsDecided, storeAlone, type BaseConfig } from '@bo/runtime';
import { decideNewInvoice, newInvoiceRows } from '../src/invoice/decide-new-invoice';
import * as testing from '@bo/testkit';
import { runDate } from '../src/domain/recurrence';
import { toRecurringRecord, type InvoiceRow } from '../src/invoice/invoice.record';
import { childLineCheck } from '../src/recurring/child-lines';
import { childAlone, contractChangeAlone, readContract, readNextChild } from '../src/recurring/contract';
import { decideNextChild, decidePause, decideResume } from '../src/recurring/decide-contract';
import { recurringScheduler, runDueContracts as runDue } from '../src/recurring/scheduler';
import { body, specLine, startWithFakePartners, tenthsLine } from './fixtures';

const log = createLogger('test', 'silent');

describe('invoicing service: recurring contracts', () => {
  let svc: testing.TestService;
  let catalog: testing.CatalogStub;
  const config = { RPC_TIMEOUT_MS: 5000 } as BaseConfig;
  /** A scheduler pass on the given day, its lines checked by the stand-in catalog. */
  const runDueContracts = (db: testing.TestService['db'], logger: typeof log, day: string) =>
    runDue(db, logger, day, childLineCheck({ bus: svc.client, config }));

  beforeAll(async () => {
    // The service's own scheduler must not run a pass of its own while these tests drive the clock.
    ({ svc, catalog } = await startWithFakePartners(
      [
        { org: 1, id: 10, partnername: 'Acme', credit_limit: 0, balance: 0 },
        { org: 1, id: 11, partnername: 'Gone Ltd', credit_limit: 0, balance: 0 },
      ],
      { RECURRING_INTERVAL_MS: '3600000' },
    ));
  });
  afterAll(async () => {
    await svc?.stop();
  });

  const createContract = (recurring: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    svc.call('invoicing.invoice.create', {
      userid: '5',
      invoicetype: 'invoiceout',
      partner: 10,
      invoicedatetime: '2100-01-31T08:00:00',
      invoicedue: '2100-02-14',
      line_items: [specLine, tenthsLine],
      recurring: { enabled: true, ...recurring },
      ...extra,
    });
  const childrenOf = (parentId: number) => svc.db('invoices').where({ parent_id: parentId }).orderBy('run_date');

  it('refuses a recurring contract without a frequency, creating nothing', async () => {
    const before = await svc.db('invoices').count<{ c: number }[]>({ c: '*' });
    const reply = await createContract({ start_date: '2100-01-31' });
    expect(reply).toMatchObject({
      ok: false,
      status: 400,
      code: 'validation_failed',
      message: 'invalid recurring configuration: frequency is required',
    });
    expect(await svc.db('invoices').count<{ c: number }[]>({ c: '*' })).toEqual(before);
  });

  it('makes every due child, catching up missed periods across month ends and a leap day, then completes', async () => {
    const created = body(await createContract({ frequency: 'monthly', start_date: '2100-01-31', occurrences_count: 4 }));
    const parent = created.invoice;
    expect(created.message).toBe('Recurring invoice created successfully');
    expect(parent.recurring).toEqual({
      // The parent bills January (from start_date): the first child bills the period after it.
      enabled: true,
      is_parent: true,
      frequency: 'monthly',
      start_date: '2100-01-31',
      next_run_date: '2100-02-28',
      occurrences_count: 4,
      generated_count: 0,
      status: 'active',
      cancellation_reason: null,
      parent_id: null,
    });
    // Nothing is due within the parent's own period: it is never billed twice.
    expect(await runDueContracts(svc.db, log, '2100-01-31')).toBe(0);
    expect(await runDueContracts(svc.db, log, '2100-02-27')).toBe(0);
    // 2100 is not a leap year: Feb 28 and Mar 31 are due by Apr 15; Apr 30 is not.
    expect(await runDueContracts(svc.db, log, '2100-04-15')).toBe(2);
    const children = await childrenOf(parent.id);
    expect(
      children.map((c) => [c.run_date, c.invoicedatetime.toISOString().slice(0, 10), c.invoicedue, c.invoicestatus, c.invoicetotal]),
    ).toEqual([
      ['2100-02-28', '2100-02-28', '2100-03-14', 'draft', '259.05'],
      ['2100-03-31', '2100-03-31', '2100-04-14', 'draft', '259.05'],
    ]);
    expect(
      await svc.db('invoice_lines').whereIn(
        'invoice_id',
        children.map((c) => c.id),
      ),
    ).toHaveLength(4);
    let stored = await svc.db('invoices').where({ id: parent.id }).first();
    expect([stored.recurring_next_run_date, stored.recurring_generated, stored.recurring_status]).toEqual(['2100-04-30', 2, 'active']);
    // A second pass on the same day has nothing to do.
    expect(await runDueContracts(svc.db, log, '2100-04-15')).toBe(0);
    expect(await runDueContracts(svc.db, log, '2100-12-31')).toBe(2);
    stored = await svc.db('invoices').where({ id: parent.id }).first();
    expect([stored.recurring_next_run_date, stored.recurring_generated, stored.recurring_status]).toEqual([null, 4, 'completed']);
    expect((await childrenOf(parent.id)).map((c) => c.run_date)).toEqual(['2100-02-28', '2100-03-31', '2100-04-30', '2100-05-31']);
    const generate = await svc.call('invoicing.recurring.generate', { generate_child_invoice: true, id: parent.id });
    expect(generate).toMatchObject({ ok: false, code: 'invalid_state', message: expect.stringContaining('completed') });
    expect(await childrenOf(parent.id)).toHaveLength(4);
  });

  it('lands on Feb 29 in a leap year', async () => {
    const parent = body(
      await createContract(
        { frequency: 'monthly', start_date: '2104-01-31' },
        { invoicedatetime: '2104-01-31T00:00:00', invoicedue: null },
      ),
    ).invoice;
    expect(await runDueContracts(svc.db, log, '2104-03-01')).toBe(1);
    expect((await childrenOf(parent.id)).map((c) => c.run_date)).toEqual(['2104-02-29']);
    body(await svc.call('invoicing.recurring.cancel', { cancel_recurring: true, id: parent.id }));
  });

  it('never makes a child twice when two schedulers race', async () => {
    const parents = [];
    for (const frequency of ['daily', 'weekly', 'monthly', 'quarterly']) {
      parents.push(
        body(await createContract({ frequency, start_date: '2200-01-01' }, { invoicedatetime: '2200-01-01T00:00:00', invoicedue: null }))
          .invoice,
      );
    }
    const made = await Promise.all([
      runDueContracts(svc.db, log, '2200-03-01'),
      runDueContracts(svc.db, log, '2200-03-01'),
      runDueContracts(svc.db, log, '2200-03-01'),
    ]);
    // After the parents' own first periods, up to Mar 1: 59 days, 8 weeks, 2 months, no quarter.
    expect(made.reduce((a, b) => a + b, 0)).toBe(59 + 8 + 2 + 0);
    const counts = await Promise.all(parents.map(async (p) => (await childrenOf(p.id)).length));
    expect(counts).toEqual([59, 8, 2, 0]);
    const duplicates = await svc.db.raw(
      'select parent_id, run_date from invoices where parent_id is not null group by 1, 2 having count(*) > 1',
    );
    expect(duplicates.rows).toEqual([]);
    const numbers = await svc.db('invoices').pluck('invoicenumber');
    expect(new Set(numbers).size).toBe(numbers.length);
    for (const p of parents)
      body(await svc.call('invoicing.recurring.cancel', { cancel_recurring: true, id: p.id, cancellation_reason: 'test over' }));
  });

  it('pauses, resumes to the first date not in the past, generates on demand and cancels with a reason', async () => {
    const now = today();
    const start = runDate(now, 'monthly', -3);
    const parent = body(
      await createContract({ frequency: 'monthly', start_date: start }, { invoicedatetime: `${start}T00:00:00`, invoicedue: null }),
    ).invoice;

    const paused = body(await svc.call('invoicing.recurring.pause', { pause_recurring: true, id: parent.id }));
    expect(paused).toMatchObject({
      message: 'Recurring invoice paused successfully',
      invoice: { id: parent.id, invoicenumber: parent.invoicenumber, recurring: { status: 'paused' } },
    });
    expect(await svc.call('invoicing.recurring.pause', { pause_recurring: true, id: parent.id })).toMatchObject({
      ok: false,
      code: 'invalid_state',
    });
    expect(await svc.call('invoicing.recurring.generate', { generate_child_invoice: true, id: parent.id })).toMatchObject({
      ok: false,
      code: 'invalid_state',
    });
    // A paused contract makes nothing even when periods are due.
    await runDueContracts(svc.db, log, now);
    expect(await childrenOf(parent.id)).toHaveLength(0);

    const resumed = body(await svc.call('invoicing.recurring.resume', { resume_recurring: true, id: parent.id }));
    expect(resumed.invoice.recurring.status).toBe('active');
    expect(resumed.invoice.recurring.next_run_date >= now).toBe(true);
    expect(resumed.invoice.recurring.next_run_date).toBe(runDate(start, 'monthly', runDate(start, 'monthly', 3) >= now ? 3 : 4));

    const generated = body(await svc.call('invoicing.recurring.generate', { generate_child_invoice: true, id: parent.id }));
    expect(generated.child).toMatchObject({
      invoicestatus: 'draft',
      invoicetotal: 259.05,
      recurring: { enabled: false, parent_id: parent.id },
    });
    expect(generated.child.invoicedatetime.slice(0, 10)).toBe(resumed.invoice.recurring.next_run_date);
    expect(generated.invoice.recurring.generated_count).toBe(1);
    expect(generated.invoice.recurring.next_run_date > resumed.invoice.recurring.next_run_date).toBe(true);

    const cancelled = body(
      await svc.call('invoicing.recurring.cancel', {
        cancel_recurring: true,
        id: parent.id,
        cancellation_reason: 'Customer ended the contract',
      }),
    );
    expect(cancelled.invoice.recurring).toMatchObject({
      status: 'cancelled',
      cancellation_reason: 'Customer ended the contract',
      next_run_date: null,
    });
    expect(await svc.call('invoicing.recurring.resume', { resume_recurring: true, id: parent.id })).toMatchObject({
      ok: false,
      code: 'invalid_state',
    });
    await runDueContracts(svc.db, log, '2999-12-31');
    expect(await childrenOf(parent.id)).toHaveLength(1);
  });

  it('pauses, resumes and cancels as one statement on an unlocked read, answering the contract as stored; a contract changed since goes the locked way', async () => {
    const parent = body(await createContract({ frequency: 'monthly', start_date: '2100-01-31' })).invoice;
    const stored = async () => toRecurringRecord((await svc.db('invoices').where({ id: parent.id }).first()) as InvoiceRow);

    // Read, then the contract changes: the pause decided on the read writes nothing.
    const read = (await readContract(svc.db, 1, parent.id))!;
    await svc.db('invoices').where({ id: parent.id }).update({ updated_at: svc.db.fn.now() });
    const answer = { ok: true as const, status: 200, body: {} };
    const pauseAlone = { ...contractChangeAlone(parent.id, decidePause(read.row), read.read), events: [], reply: {} };
    await expect(storeAlone(svc.db, pauseAlone, undefined, answer)).rejects.toBeInstanceOf(NotAsDecided);
    expect((await stored()).status).toBe('active');

    // Through the service: each reply is the contract as it was stored.
    const paused = body(await svc.call('invoicing.recurring.pause', { pause_recurring: true, id: parent.id }));
    expect(paused.invoice.recurring).toEqual(await stored());
    expect(paused.invoice.recurring.status).toBe('paused');
    const resumed = body(await svc.call('invoicing.recurring.resume', { resume_recurring: true, id: parent.id }));
    expect(resumed.invoice.recurring).toEqual(await stored());
    expect(resumed.invoice.recurring.status).toBe('active');
    body(await svc.call('invoicing.recurring.pause', { pause_recurring: true, id: parent.id }));

    // A resume decided on a read writes nothing once a delete of the partner fences it: the statement
    // checks the fence, and the locked way then refuses (delete-fence.int.test.ts).
    const paused2 = (await readContract(svc.db, 1, parent.id))!;
    const fence = { org_id: 1, partner_id: paused2.row.partner_id };
    await svc.db('partner_delete_fences').insert({ ...fence, fenced_until: svc.db.raw("now() + interval '1 minute'") });
    const resumeAlone = {
      ...contractChangeAlone(parent.id, decideResume(paused2.row, paused2.today), paused2.read, paused2.row.partner_id),
      events: [],
      reply: {},
    };
    await expect(storeAlone(svc.db, resumeAlone, undefined, answer)).rejects.toBeInstanceOf(NotAsDecided);
    expect((await stored()).status).toBe('paused');
    await svc.db('partner_delete_fences').where(fence).delete();
    // With no fence, the same statement stores the resume.
    await storeAlone(svc.db, resumeAlone, undefined, answer);
    expect((await stored()).status).toBe('active');

    const cancelled = body(
      await svc.call('invoicing.recurring.cancel', { cancel_recurring: true, id: parent.id, cancellation_reason: '  moved away ' }),
    );
    expect(cancelled.invoice.recurring).toEqual(await stored());
    expect(cancelled.invoice.recurring).toMatchObject({ status: 'cancelled', next_run_date: null, cancellation_reason: 'moved away' });

    // Refused once it ended, the locked way, and the row stays exactly as it was.
    const before = await svc.db('invoices').where({ id: parent.id }).first();
    expect(await svc.call('invoicing.recurring.pause', { pause_recurring: true, id: parent.id })).toMatchObject({
      ok: false,
      code: 'invalid_state',
      message: expect.stringContaining('only an active contract can be paused'),
    });
    expect(
      await svc.call('invoicing.recurring.cancel', { cancel_recurring: true, id: parent.id, cancellation_reason: 'again' }),
    ).toMatchObject({
      ok: false,
      code: 'invalid_state',
      message: expect.stringContaining('is already cancelled'),
    });
    expect(await svc.db('invoices').where({ id: parent.id }).first()).toEqual(before);
  });

  it('refuses contract operations on an ordinary invoice and on another organization', async () => {
    const plain = body(await svc.call('invoicing.invoice.create', { invoicetype: 'invoiceout', partner: 10 })).invoice;
    expect(await svc.call('invoicing.recurring.pause', { pause_recurring: true, id: plain.id })).toMatchObject({
      ok: false,
      code: 'invalid_state',
      message: expect.stringContaining('not a recurring contract'),
    });
    const contract = body(await createContract({ frequency: 'yearly', start_date: '2300-01-01' })).invoice;
    for (const [operation, flag] of [
      ['invoicing.recurring.pause', 'pause_recurring'],
      ['invoicing.recurring.resume', 'resume_recurring'],
      ['invoicing.recurring.cancel', 'cancel_recurring'],
      ['invoicing.recurring.generate', 'generate_child_invoice'],
    ] as const) {
      expect(await svc.call(operation, { [flag]: true, id: contract.id }, 2)).toMatchObject({
        ok: false,
        code: 'not_found',
        message: `Invoice ${contract.id} not found`,
      });
    }
    const stored = await svc.db('invoices').where({ id: contract.id }).first();
    expect([stored.recurring_status, stored.recurring_generated]).toEqual(['active', 0]);
    expect(await childrenOf(contract.id)).toHaveLength(0);
    body(await svc.call('invoicing.recurring.cancel', { cancel_recurring: true, id: contract.id }));
  });

  it('ends the contract when its invoice is cancelled, and makes no child after that', async () => {
    const contract = body(
      await createContract(
        { frequency: 'monthly', start_date: '2500-01-31' },
        { invoicedatetime: '2500-01-31T00:00:00', invoicedue: null },
      ),
    ).invoice;
    body(await svc.call('invoicing.invoice.cancel', { cancel_invoice: true, id: contract.id }));
    const stored = await svc.db('invoices').where({ id: contract.id }).first();
    expect([stored.invoicestatus, stored.recurring_status, stored.recurring_next_run_date]).toEqual(['cancelled', 'cancelled', null]);
    await runDueContracts(svc.db, log, '2500-12-31');
    expect(await svc.call('invoicing.recurring.generate', { generate_child_invoice: true, id: contract.id })).toMatchObject({
      ok: false,
      code: 'invalid_state',
    });
    expect(await childrenOf(contract.id)).toHaveLength(0);
  });

  it('runs as a background task of the service', async () => {
    // Started yesterday, daily: the parent bills yesterday, the first child today.
    const start = runDate(today(), 'daily', -1);
    const parent = body(
      await createContract({ frequency: 'daily', start_date: start }, { invoicedatetime: `${start}T00:00:00`, invoicedue: null }),
    ).invoice;
    const task = recurringScheduler({ db: svc.db, bus: svc.client, config, log, relay: svc.running.relay }, 100);
    task.start();
    try {
      await testing.waitUntil(async () => (await childrenOf(parent.id)).length > 0, { timeoutMs: 5000 });
    } finally {
      await task.stop();
    }
    expect((await childrenOf(parent.id)).map((c) => c.run_date)).toEqual([today()]);
    body(await svc.call('invoicing.recurring.cancel', { cancel_recurring: true, id: parent.id }));
  });

  it('generates by hand as one statement on an unlocked read, answering the child as stored; a contract moved since writes nothing', async () => {
    const start = today();
    const parent = body(
      await createContract({ frequency: 'monthly', start_date: start }, { invoicedatetime: `${start}T00:00:00`, invoicedue: null }),
    ).invoice;
    // Read, then the scheduler's pass moves the contract on: the child decided on the read is not made.
    const loaded = await readNextChild(svc.db, 1, parent.id);
    const { values, contract } = decideNextChild(loaded.row);
    const plan = decideNewInvoice(1, values, loaded.lines, loaded.defaults);
    const stale = childAlone(
      plan,
      newInvoiceRows(plan, loaded.drawn, filledIn<string>()),
      { id: parent.id, changes: contract, read: loaded.read },
      (n) => n,
    );
    await svc.db('invoices').where({ id: parent.id }).update({ updated_at: svc.db.fn.now() });
    await expect(
      storeAlone(svc.db, { ...stale, events: [], reply: {} }, undefined, { ok: true, status: 200, body: {} }),
    ).rejects.toBeInstanceOf(NotAsDecided);
    expect(await childrenOf(parent.id)).toHaveLength(0);

    // Through the service: the reply tells the child and the contract as stored, the number in its message.
    const generated = body(await svc.call('invoicing.recurring.generate', { generate_child_invoice: true, id: parent.id }));
    const [child] = await childrenOf(parent.id);
    expect(generated.message).toBe(`Child invoice ${child.invoicenumber} generated successfully`);
    expect(generated.child).toMatchObject({ id: child.id, invoicenumber: child.invoicenumber, invoicetotal: Number(child.invoicetotal) });
    expect(generated.invoice.recurring).toEqual(
      toRecurringRecord((await svc.db('invoices').where({ id: parent.id }).first()) as InvoiceRow),
    );
    expect(generated.invoice.recurring).toMatchObject({ generated_count: 1, next_run_date: runDate(start, 'monthly', 2) });
    body(await svc.call('invoicing.recurring.cancel', { cancel_recurring: true, id: parent.id }));
  });

  it('generates by hand at most one period ahead of the schedule', async () => {
    const start = today();
    const parent = body(
      await createContract({ frequency: 'monthly', start_date: start }, { invoicedatetime: `${start}T00:00:00`, invoicedue: null }),
    ).invoice;
    // The parent bills this month; next month's child may be made now, ahead of its date.
    const generated = body(await svc.call('invoicing.recurring.generate', { generate_child_invoice: true, id: parent.id }));
    expect(generated.child.invoicedatetime.slice(0, 10)).toBe(runDate(start, 'monthly', 1));
    // The month after that would be two periods ahead: refused, nothing made.
    expect(await svc.call('invoicing.recurring.generate', { generate_child_invoice: true, id: parent.id })).toMatchObject({
      ok: false,
      status: 400,
      code: 'invalid_state',
      message: expect.stringContaining('at most one period ahead'),
    });
    expect(await childrenOf(parent.id)).toHaveLength(1);
    body(await svc.call('invoicing.recurring.cancel', { cancel_recurring: true, id: parent.id }));
  });

  it('makes no child whose product left the catalog: generate is a 400 naming the line, the scheduler stops the contract', async () => {
    catalog.products.set(880, { name: 'Hosting' });
    const parent = body(
      await createContract(
        { frequency: 'monthly', start_date: '2600-01-31' },
        { invoicedatetime: '2600-01-31T00:00:00', invoicedue: null, line_items: [specLine, { ...specLine, product_id: 880 }] },
      ),
    ).invoice;
    catalog.missing.add(880);
    const before = await svc.db('invoices').count<{ n: number }[]>({ n: '*' });
    expect(await svc.call('invoicing.recurring.generate', { generate_child_invoice: true, id: parent.id })).toMatchObject({
      ok: false,
      status: 400,
      code: 'not_found',
      errors: [{ field: 'line_items.1.product_id' }],
    });
    expect(await svc.db('invoices').count<{ n: number }[]>({ n: '*' })).toEqual(before);
    expect(await runDueContracts(svc.db, log, '2600-12-31')).toBe(0);
    expect(await childrenOf(parent.id)).toHaveLength(0);
    const stored = await svc.db('invoices').where({ id: parent.id }).first();
    expect([stored.recurring_status, stored.recurring_next_run_date, stored.recurring_cancellation_reason]).toEqual([
      'cancelled',
      null,
      expect.stringContaining('line_items.1.product_id'),
    ]);
  });

  it('skips and stops a contract whose partner the read model marks deleted, even without the recurring consumer', async () => {
    const parent = body(
      await createContract(
        { frequency: 'monthly', start_date: '2750-01-31' },
        { partner: 11, invoicedatetime: '2750-01-31T00:00:00', invoicedue: null },
      ),
    ).invoice;
    // The partner directory saw the deletion; the recurring-partners consumer has not (yet) stopped the contract.
    await svc.db('partner_directory').where({ org_id: 1, id: 11 }).update({ deleted_at: new Date() });
    expect((await svc.db('invoices').where({ id: parent.id }).first()).recurring_status).toBe('active');
    expect(await runDueContracts(svc.db, log, '2750-12-31')).toBe(0);
    expect(await childrenOf(parent.id)).toHaveLength(0);
    const stored = await svc.db('invoices').where({ id: parent.id }).first();
    expect([stored.recurring_status, stored.recurring_next_run_date, stored.recurring_cancellation_reason]).toEqual([
      'cancelled',
      null,
      'Partner 11 was deleted',
    ]);
  });

  it('stops the active and paused contracts of a deleted partner, with the reason', async () => {
    const paused = body(
      await createContract(
        { frequency: 'monthly', start_date: '2700-01-31' },
        { invoicedatetime: '2700-01-31T00:00:00', invoicedue: null },
      ),
    ).invoice;
    body(await svc.call('invoicing.recurring.pause', { pause_recurring: true, id: paused.id }));
    const active = body(
      await createContract(
        { frequency: 'monthly', start_date: '2700-01-31' },
        { invoicedatetime: '2700-01-31T00:00:00', invoicedue: null },
      ),
    ).invoice;
    expect((await svc.db('invoices').where({ id: active.id }).first()).recurring_status).toBe('active');
    const record = testing.partnerRecord(1, 10, {
      partnername: 'Acme',
      display_name: 'Acme',
      currency: null,
      created_at: '2025-01-01T00:00:00',
      updated_at: '2025-01-01T00:00:01',
    });
    await svc.publish('partners.partner.deleted', 1, record);
    const statuses = async () =>
      (await svc.db('invoices').whereIn('id', [paused.id, active.id]).select('recurring_status')).map(
        (r: { recurring_status: string }) => r.recurring_status,
      );
    await testing.waitUntil(async () => (await statuses()).every((s) => s === 'cancelled'));
    for (const id of [paused.id, active.id]) {
      const stored = await svc.db('invoices').where({ id }).first();
      expect([stored.recurring_status, stored.recurring_next_run_date, stored.recurring_cancellation_reason]).toEqual([
        'cancelled',
        null,
        'Partner 10 was deleted',
      ]);
    }
  });
});
