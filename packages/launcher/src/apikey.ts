import { createApiKey, gatewayMigrations, revokeApiKey } from '@bo/gateway';
import { createDb, migrate } from '@bo/runtime';

const USAGE = 'usage: npm run apikey -- create --org <N> [--label <text>] | npm run apikey -- revoke <key>';
const EMBEDDED_URL = `postgres://postgres:backoffice@127.0.0.1:${process.env.EMBEDDED_PG_PORT ?? 54329}/backoffice`;

/** Creates or revokes API keys; `create` prints the new key alone on the last line of stdout. */
async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const url = process.env.DATABASE_URL || EMBEDDED_URL;
  const db = createDb(url, 'gateway', 1);
  try {
    await migrate(db, 'gateway', gatewayMigrations);
    if (command === 'create') {
      const org = Number(option(rest, '--org'));
      if (!Number.isInteger(org) || org <= 0) {
        console.error(`--org must be a positive integer\n${USAGE}`);
        return 2;
      }
      const { key } = await createApiKey(db, org, option(rest, '--label'));
      console.log(`API key for organization ${org} (shown once, store it now):`);
      console.log(key);
      return 0;
    }
    if (command === 'revoke' && rest[0]) {
      const revoked = await revokeApiKey(db, rest[0]);
      console.log(revoked ? 'revoked' : 'no live key matches');
      return revoked ? 0 : 1;
    }
    console.error(USAGE);
    return 2;
  } finally {
    await db.destroy();
  }
}

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    const refused = (err as { code?: string }).code === 'ECONNREFUSED';
    const hint = refused && !process.env.DATABASE_URL ? ' (no DATABASE_URL: is `npm start` running with its embedded PostgreSQL?)' : '';
    console.error(`apikey failed: ${(err as Error).message}${hint}`);
    process.exit(1);
  },
);
