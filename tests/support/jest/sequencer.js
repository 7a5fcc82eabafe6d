/**
 * The order test files start in: jest's own (files that failed last time, then the longest by its
 * recorded timings, else the largest), except that the chaos runs start first. They are the longest
 * file of the suite and run alone on one worker while the other takes the rest; started last, as a
 * fresh clone's small file would be, they would run on after everything else had finished.
 */
const Sequencer = require('@jest/test-sequencer').default;

const FIRST = /[/\\]tests[/\\]chaos[/\\][^/\\]+\.chaos\.test\.ts$/;

class RunSequencer extends Sequencer {
  async sort(tests) {
    const ordered = await super.sort(tests);
    return [...ordered.filter((t) => FIRST.test(t.path)), ...ordered.filter((t) => !FIRST.test(t.path))];
  }
}

module.exports = RunSequencer;
