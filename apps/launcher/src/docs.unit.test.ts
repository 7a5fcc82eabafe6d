import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generatedDocs } from './docs';

const root = join(__dirname, '..', '..', '..');

describe('generated reference docs', () => {
  it.each(Object.entries(generatedDocs))('%s matches the contracts (run `npm run docs` after changing them)', (file, make) => {
    expect(readFileSync(join(root, file), 'utf8')).toBe(make());
  });
});
