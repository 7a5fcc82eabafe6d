import { resolve } from 'node:path';

/** The repository root: launcher code runs from packages/launcher/dist. */
export const repoRoot = resolve(__dirname, '..', '..', '..');
