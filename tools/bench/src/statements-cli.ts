import { countStatements } from './statements';
import { statementTable } from './statements-writes';

/** `npm run bench:statements` (statements.ts): statements per write request, from the clients or PostgreSQL's log. */
countStatements(process.argv.slice(2)).then(
  (result) => {
    if (result.count === 'client') {
      console.log(statementTable(result.writes, { shapes: result.shapes }));
      return;
    }
    for (const [name, count] of Object.entries(result.writes)) {
      console.log(`\n${name}: ${count.perRequest} statements per request`);
      for (const s of count.statements.slice(0, 30)) console.log(`  ${s.perRequest.toFixed(2)}  ${s.sql}`);
    }
  },
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
