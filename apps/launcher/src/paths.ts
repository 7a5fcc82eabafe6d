import { resolve } from 'node:path';

/** The repository root: launcher code runs from apps/launcher/dist. */
export const repoRoot = resolve(__dirname, '..', '..', '..');
