import { createApiKey, gatewayMigrations, revokeApiKey } from '@bo/gateway';
import { createDb, migrate } from '@bo/runtime';

export const USAGE = 'usage: npm run apikey -- create --org <N> [--label <text>] | npm run apikey -- revoke <key>';

export interface Output {
  out(line: string): void;
  err(line: string): void;
}

/** `create` prints the new key alone on the last line of stdout; answers the exit code. */
export async function apiKeyCommand(argv: string[], databaseUrl: string, io: Output): Promise<number> {
  const [command, ...rest] = argv;
  if (command !== 'create' && !(command === 'revoke' && rest[0])) {
    io.err(USAGE);
    return 2;
  }
  const org = Number(option(rest, '--org'));
  if (command === 'create' && (!Number.isInteger(org) || org <= 0)) {
    io.err(`--org must be a positive integer\n${USAGE}`);
    return 2;
  }
  const db = createDb(databaseUrl, 'gateway', 1);
  try {
    await migrate(db, 'gateway', gatewayMigrations);
    if (command === 'create') {
      const { key } = await createApiKey(db, org, option(rest, '--label'));
      io.out(`API key for organization ${org} (shown once, store it now):`);
      io.out(key);
      return 0;
    }
    const revoked = await revokeApiKey(db, rest[0] as string);
    io.out(revoked ? 'revoked' : 'no live key matches');
    return revoked ? 0 : 1;
  } finally {
    await db.destroy();
  }
}

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}
