import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventsReference, operationsReference } from '@bo/contracts';
import { repoRoot } from './paths';

/** `npm run docs`: regenerates the operation and event reference from the contracts. */
export const generatedDocs = { 'docs/operations.md': operationsReference, 'docs/events.md': eventsReference };

if (require.main === module) {
  for (const [file, make] of Object.entries(generatedDocs)) {
    writeFileSync(join(repoRoot, file), make());
    console.log(`wrote ${file}`);
  }
}
