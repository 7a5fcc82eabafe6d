import { parentPort } from 'node:worker_threads';
import { runRules, type RulesJob } from './validate';

/** The e-invoice rules thread (validate.ts): one transform at a time, off the service's event loop. */
parentPort?.on('message', (job: RulesJob) => {
  void runRules(job).then((result) => parentPort?.postMessage(result));
});
