import { explainStartError } from './start-errors';

/**
 * `npm start`'s entry. Everything else loads inside the guard, so even a missing build or module
 * ends in one sentence saying what to do, never a stack trace.
 */
async function run(): Promise<void> {
  const { defaultToDevelopment } = await import('./dev-defaults.js');
  defaultToDevelopment(process.env);
  const { main } = await import('./start-system.js');
  await main();
}

run().catch((err: unknown) => {
  console.error(explainStartError(err, process.env));
  if (process.env.LOG_LEVEL === 'debug' || process.env.LOG_LEVEL === 'trace') console.error(err);
  process.exit(1);
});
