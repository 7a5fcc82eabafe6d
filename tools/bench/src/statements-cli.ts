import { countStatements } from './statements';

/** `npm run bench:statements` (statements.ts): statements per write request, from PostgreSQL's log. */
countStatements(process.argv.slice(2)).then(
  (result) => {
    for (const [name, count] of Object.entries(result)) {
      console.log(`\n${name}: ${count.perRequest} statements per request`);
      for (const s of count.statements.slice(0, 30)) console.log(`  ${s.perRequest.toFixed(2)}  ${s.sql}`);
    }
  },
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
