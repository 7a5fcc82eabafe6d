import { inDevelopmentMode } from '@bo/webhooks';
import { commandDatabaseUrl, DEVELOPMENT_DEFAULTS, defaultToDevelopment } from './dev-defaults';
import { webhooksCommand } from './webhooks-command';

// As `npm start`: development mode unless NODE_ENV says otherwise, and its keys unless WEBHOOKS_SECRET_KEYS is set.
defaultToDevelopment(process.env);
webhooksCommand(
  process.argv.slice(2),
  commandDatabaseUrl(process.env),
  process.env.WEBHOOKS_SECRET_KEYS || (DEVELOPMENT_DEFAULTS.WEBHOOKS_SECRET_KEYS as string),
  inDevelopmentMode(),
  { out: (line) => console.log(line), err: (line) => console.error(line) },
).then(
  (code) => process.exit(code),
  (err) => {
    const refused = (err as { code?: string }).code === 'ECONNREFUSED';
    const hint = refused && !process.env.DATABASE_URL ? ' (no DATABASE_URL: is `npm start` running with its embedded PostgreSQL?)' : '';
    console.error(`webhooks ${process.argv[2] ?? ''} failed: ${(err as Error).message}${hint}`);
    process.exit(1);
  },
);
