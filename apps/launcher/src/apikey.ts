import { apiKeyCommand } from './apikey-command';

const EMBEDDED_URL = `postgres://postgres:backoffice@127.0.0.1:${process.env.EMBEDDED_PG_PORT ?? 54329}/backoffice`;

apiKeyCommand(process.argv.slice(2), process.env.DATABASE_URL || EMBEDDED_URL, {
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
