/**
 * A clone is the whole project: the API specification (docs/spec.md) and the design (docs/design.md)
 * live in the repository, and no file points at a path outside it.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
const outside = ['..', 'shared'].join('/');

describe('the repository stands alone', () => {
  it('no tracked file refers to a folder beside the repository', () => {
    const files = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' }).split('\0').filter(Boolean);
    expect(files.length).toBeGreaterThan(100);
    const pointing = files.filter(
      (file) => !/\.(png|pdf|ttf|woff2?)$/.test(file) && readFileSync(join(root, file), 'utf8').includes(outside),
    );
    expect(pointing).toEqual([]);
  });

  it('carries the specification and the design it cites', () => {
    expect(readFileSync(join(root, 'docs', 'spec.md'), 'utf8')).toMatch(/^# Business Operations Service/);
    expect(readFileSync(join(root, 'docs', 'design.md'), 'utf8')).toMatch(/^# Design:/);
  });
});
