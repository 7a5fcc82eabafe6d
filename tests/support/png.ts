/** PNGs made to measure for tests (kept in @bo/contracts beside the check they exercise). */
export * from '../../packages/contracts/src/png.fixtures';
