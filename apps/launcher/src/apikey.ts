import { apiKeyCommand } from './apikey-command';
import { commandDatabaseUrl } from './dev-defaults';

apiKeyCommand(process.argv.slice(2), commandDatabaseUrl(process.env), {
  out: (line) => console.log(line),
  err: (line) => console.error(line),
}).then(
  (code) => process.exit(code),
  (err) => {
    const refused = (err as { code?: string }).code === 'ECONNREFUSED';
    const hint = refused && !process.env.DATABASE_URL ? ' (no DATABASE_URL: is `npm start` running with its embedded PostgreSQL?)' : '';
    console.error(`apikey failed: ${(err as Error).message}${hint}`);
    process.exit(1);
  },
);
