import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { buildOpenApi } from '@bo/contracts';

/**
 * The OpenAPI document through a linter nobody here wrote, Stoplight's spectral with its `spectral:oas`
 * ruleset, as an integrator would run it: no error. Among its rules, every example must be valid
 * against the schema it illustrates, and a `oneOf` must be matched exactly once, read with spectral's
 * own reference resolution (which drops whatever stands beside a `$ref`).
 */

interface Finding {
  code: string;
  message: string;
  path: Array<string | number>;
  severity: number;
}

describe('the OpenAPI document under spectral:oas', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'bo-spectral-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('has no error', () => {
    writeFileSync(join(dir, 'openapi.json'), JSON.stringify(buildOpenApi()));
    writeFileSync(join(dir, '.spectral.yaml'), 'extends: ["spectral:oas"]\n');
    // Its command line in a child node: the CLI is its package's `bin`.
    const cli = join(dirname(require.resolve('@stoplight/spectral-cli/package.json')), 'dist', 'index.js');
    const run = spawnSync(
      process.execPath,
      [cli, 'lint', join(dir, 'openapi.json'), '--ruleset', join(dir, '.spectral.yaml'), '--format', 'json', '--quiet'],
      { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
    );
    const findings = JSON.parse(run.stdout) as Finding[];
    // Severity 0 is an error; warnings (an `info.contact`, say) are advice.
    const errors = findings.filter((f) => f.severity === 0).map((f) => `${f.code} at ${f.path.join('/')}: ${f.message}`);
    expect(errors).toEqual([]);
    expect(run.status).toBe(0);
  }, 120_000);
});
