import { appendFileSync } from 'node:fs';
import Module from 'node:module';
import { instrumentPg, type CountedStatement } from './statements-counter';

/**
 * Loaded into every process of a system the bench starts (`NODE_OPTIONS=--require …`) by
 * `npm run bench:statements -- --count client` (statements.ts): each statement the process sends to
 * its DATABASE_URL's database is appended, once answered, to BO_STATEMENTS_FILE as a line of JSON.
 * Whichever `pg` the process loads (a --subject checkout has its own) is counted.
 */
const file = process.env['BO_STATEMENTS_FILE'];
const url = process.env['DATABASE_URL'];
if (file && url) {
  const database = new URL(url).pathname.slice(1);
  const write = (s: CountedStatement) => appendFileSync(file, `${JSON.stringify(s)}\n`);
  const seen = new WeakSet<object>();
  const loader = Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown };
  const load = loader._load;
  loader._load = function (request: string, ...rest: unknown[]): unknown {
    const loaded = load.call(this, request, ...rest);
    const pg = loaded as { Client?: { prototype: object } } | undefined;
    if (request === 'pg' && pg?.Client && !seen.has(pg.Client)) {
      seen.add(pg.Client);
      instrumentPg(pg as { Client: { prototype: object } }, { database }, () => undefined, write);
    }
    return loaded;
  };
}
