import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildAsyncApi, eventsReference, operationsReference } from '@bo/contracts';
import { repoRoot } from './paths';

/** `npm run docs`: regenerates the operation and event reference and the AsyncAPI document from the contracts. */
export const generatedDocs = {
  'docs/operations.md': operationsReference,
  'docs/events.md': eventsReference,
  'docs/asyncapi.json': () => `${JSON.stringify(buildAsyncApi(), null, 2)}\n`,
};

if (require.main === module) {
  for (const [file, make] of Object.entries(generatedDocs)) {
    writeFileSync(join(repoRoot, file), make());
    console.log(`wrote ${file}`);
  }
}
