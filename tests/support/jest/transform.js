/**
 * Jest's TypeScript transform: esbuild, file by file, to CommonJS with an inline source map. Types
 * are checked once by `npm run typecheck` (tsc), so the tests need only the JavaScript; esbuild does
 * in a millisecond what TypeScript's transpiler does in tens, which is most of a cold run's start-up.
 * The sources are written for isolated transpilation (`isolatedModules` in tsconfig.base.json).
 */
const { createHash } = require('node:crypto');
const { transformSync, version } = require('esbuild');

const options = {
  loader: 'ts',
  format: 'cjs',
  platform: 'node',
  target: 'node24',
  sourcemap: 'inline',
  sourcesContent: false,
  // As tsc emits for target ES2022 (tsconfig.base.json): class fields are defined, not assigned.
  tsconfigRaw: { compilerOptions: { useDefineForClassFields: true } },
};

module.exports = {
  canInstrument: false,
  getCacheKey(source, path) {
    return createHash('sha256').update(version).update('\0').update(path).update('\0').update(source).digest('hex');
  },
  process(source, path) {
    const { code } = transformSync(source, { ...options, sourcefile: path });
    return { code };
  },
};
