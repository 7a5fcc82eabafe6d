import { invoicing } from '@bo/contracts';
import { AmqpBus, createLogger } from '@bo/runtime';

export interface BooksStub {
  /** The books' settings per organization, as the stub has been told them. */
  books: Map<number, invoicing.BooksSettings>;
  /** Organizations whose accounting currency the stub holds fixed, as invoicing does once their books have posted. */
  posted: Set<number>;
  /** Requests answered so far, refused ones included. */
  calls: invoicing.ConfigureBooksRequest[];
  stop(): Promise<void>;
}

/**
 * A stand-in for invoicing's `invoicing.books.configure` on a test's bus prefix, for tests that run
 * partners without invoicing: it keeps each organization's settings as asked, and refuses a change of
 * the accounting currency of an organization in `posted` on `default_currency`, as invoicing does,
 * and answers the settings with their `books_version`, one more per answer.
 * Stopping it makes invoicing unreachable, as an invoicing outage would.
 */
export async function startBooksStub(opts: { amqpUrl: string; prefix: string }): Promise<BooksStub> {
  const bus = new AmqpBus({ url: opts.amqpUrl, prefix: opts.prefix, log: createLogger('books-stub', 'silent') });
  await bus.connect();
  let stopped: Promise<void> | undefined;
  const stub: BooksStub = {
    books: new Map(),
    posted: new Set(),
    calls: [],
    stop() {
      stopped ??= (async () => {
        await bus.close();
        // The queue goes too, so requests find no route (503 at once) instead of waiting in it.
        await bus.destroyTopology({ exchanges: false });
      })();
      return stopped;
    },
  };
  const versions = new Map<number, number>();
  await bus.serve('invoicing', [invoicing.configureBooks.name], async (_operation, payload) => {
    const req = invoicing.configureBooks.request.parse(payload);
    stub.calls.push(req);
    const orgId = Number(req.org_id);
    const current = stub.books.get(orgId) ?? { default_currency: null, lock_date: null };
    const next = {
      default_currency: req.default_currency === undefined ? current.default_currency : req.default_currency,
      lock_date: req.lock_date === undefined ? current.lock_date : req.lock_date,
    };
    if (stub.posted.has(orgId) && next.default_currency !== current.default_currency) {
      const message = 'default_currency is fixed once the books have posted';
      return { ok: false, status: 400, code: 'validation_failed', message, errors: [{ field: 'default_currency', message }] };
    }
    stub.books.set(orgId, next);
    // Each answer is a change here (one more version), as invoicing's changes are.
    const books_version = (versions.get(orgId) ?? 0) + 1;
    versions.set(orgId, books_version);
    return { ok: true, status: 200, body: { message: 'Books configured', books: next, books_version } };
  });
  return stub;
}
