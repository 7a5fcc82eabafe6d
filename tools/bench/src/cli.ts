import { main } from './main';

/**
 * `npm run bench` (see main.ts and docs/performance.md): the real system in both modes, every
 * scenario against a ceiling stand-in measured in the same run. Options: `--only <scenario,...>`,
 * `--modes rabbitmq|in-process`, `--json FILE`; BENCH_SECONDS sets the run length.
 */
main(process.argv.slice(2)).catch((err) => {
  console.error(err);
  process.exit(1);
});
