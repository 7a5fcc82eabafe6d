import { createDb, migrate, runtimeMigrations } from '@bo/runtime';
import { parseSealingKeys, rekey, SecretBox, webhooksService } from '@bo/webhooks';
import type { Output } from './apikey-command';

export const USAGE = 'usage: npm run webhooks -- rekey   (seals every stored webhook secret under the first key of WEBHOOKS_SECRET_KEYS)';

/**
 * `rekey`: every webhook secret stored (endpoints, recorded answers) sealed again under the first
 * key of `keysText` (WEBHOOKS_SECRET_KEYS), so the others can be removed. Answers the exit code:
 * 1 when some secret no key given opens (it stays as it is, and is named).
 */
export async function webhooksCommand(
  argv: string[],
  databaseUrl: string,
  keysText: string,
  developmentMode: boolean,
  io: Output,
): Promise<number> {
  if (argv[0] !== 'rekey' || argv.length > 1) {
    io.err(USAGE);
    return 2;
  }
  const keys = parseSealingKeys(keysText, developmentMode);
  if (typeof keys === 'string') {
    io.err(`WEBHOOKS_SECRET_KEYS ${keys}`);
    return 2;
  }
  const box = new SecretBox(keys);
  const db = createDb(databaseUrl, 'webhooks', 1);
  try {
    await migrate(db, 'webhooks', [...runtimeMigrations, ...webhooksService.migrations]);
    const done = await rekey(db, box);
    io.out(`Sealed under key "${box.sealingId}": ${done.endpoints} endpoint(s), ${done.records} recorded answer(s).`);
    if (done.unreadable.length) {
      io.err(`${done.unreadable.length} secret(s) no key of WEBHOOKS_SECRET_KEYS opens, left as they are:`);
      done.unreadable.forEach((u) => io.err(`  ${u}`));
      return 1;
    }
    const others = keys.slice(1).map((k) => `"${k.id}"`);
    io.out(
      `Every stored secret is under key "${box.sealingId}"${others.length ? `: ${others.join(', ')} can be removed from WEBHOOKS_SECRET_KEYS` : ''}.`,
    );
    return 0;
  } finally {
    await db.destroy();
  }
}
