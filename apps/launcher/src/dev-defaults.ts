import { DEVELOPMENT_SECRET_KEYS } from '@bo/webhooks';

/**
 * DEVELOPMENT ONLY. Settings `npm start` (and the test systems) use when the environment gives none,
 * so the two commands of the README start everything. A deployment sets its own: the compose file
 * gives none, and the webhooks service refuses to start without WEBHOOKS_SECRET_KEYS, and with these
 * outside development mode (NODE_ENV `development`, which `npm start` sets, or `test`).
 */
export const DEVELOPMENT_DEFAULTS: Readonly<Record<string, string>> = {
  // Encrypts stored webhook signing secrets. Public in this repository, so it protects nothing.
  WEBHOOKS_SECRET_KEYS: DEVELOPMENT_SECRET_KEYS,
};

/** `npm start` and the launcher's commands run in development mode unless NODE_ENV says otherwise. */
export function defaultToDevelopment(env: NodeJS.ProcessEnv): void {
  env.NODE_ENV ??= 'development';
}

/** The database a command (`npm run apikey`, `npm run webhooks`) works on: DATABASE_URL, else the embedded one of `npm start`. */
export function commandDatabaseUrl(env: NodeJS.ProcessEnv): string {
  return env.DATABASE_URL || `postgres://postgres:backoffice@127.0.0.1:${env.EMBEDDED_PG_PORT ?? 54329}/backoffice`;
}

/** Settings of the environment the single-process mode hands on to its services (the rest it sets itself). */
export function passedThrough(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter(
      (e): e is [string, string] => (e[0] === 'OTEL_EXPORTER_OTLP_ENDPOINT' || e[0].startsWith('WEBHOOKS_')) && !!e[1],
    ),
  );
}
