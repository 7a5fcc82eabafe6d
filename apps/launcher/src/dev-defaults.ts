/**
 * DEVELOPMENT ONLY. Settings `npm start` (and the test systems) use when the environment gives none,
 * so the two commands of the README start everything. A deployment sets its own: the compose file
 * and any production environment must give WEBHOOKS_SECRET_KEY a random value of their own (the
 * service alone, without the launcher, refuses to start without one).
 */
export const DEVELOPMENT_DEFAULTS: Readonly<Record<string, string>> = {
  // Encrypts stored webhook signing secrets. Public in this repository, so it protects nothing.
  WEBHOOKS_SECRET_KEY: 'development-only-webhooks-key-do-not-use-in-production',
};

/** Settings of the environment the single-process mode hands on to its services (the rest it sets itself). */
export function passedThrough(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter(
      (e): e is [string, string] => (e[0] === 'OTEL_EXPORTER_OTLP_ENDPOINT' || e[0].startsWith('WEBHOOKS_')) && !!e[1],
    ),
  );
}
