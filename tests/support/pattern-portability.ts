import { execFileSync, spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { RRegex } from 'rregex';

/**
 * Whether the patterns of a JSON Schema document mean the same to every mainstream regex engine:
 * ECMA-262 with and without the `u` flag (JSON Schema's dialect, and what a validator that omits the
 * flag reads), Python's `re` (hypothesis, schemathesis, jsonschema), Rust's `regex` (jsonschema-rs,
 * schemathesis 4's validator; here its WebAssembly build, rregex) and PCRE (`grep -P`). Each must
 * compile every pattern, and all but PCRE must judge the same strings alike: strings drawn from the
 * pattern and those strings with a character changed for one that engines are known to read apart
 * (a digit of another script, an astral character, a Unicode space, a noncharacter ...).
 *
 * Two differences every engine documents are left out of the comparison rather than designed
 * around: Python's `$` also matches before a final line feed (schemathesis drops such strings), and
 * a string with an unpaired surrogate, which only ECMA-262 can hold.
 */

/** Every pattern a document carries: `pattern` keywords and `patternProperties` names. */
export function patternsIn(doc: unknown): string[] {
  const found = new Set<string>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (node === null || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key === 'pattern' && typeof value === 'string') found.add(value);
      if (key === 'patternProperties' && value && typeof value === 'object') Object.keys(value).forEach((p) => found.add(p));
      walk(value);
    }
  };
  walk(doc);
  return [...found].sort();
}

/** Characters that engines read apart, or that sit at the edge of what the document's patterns allow. */
const TELLING = [
  '0',
  '9',
  'a',
  'Z',
  ' ',
  '-',
  '.',
  '/',
  '@',
  '\\',
  '\u0663', // ARABIC-INDIC DIGIT THREE: \d in Python and Rust
  '\uFF11', // FULLWIDTH DIGIT ONE
  '\u{1D7D9}', // MATHEMATICAL DOUBLE-STRUCK DIGIT ONE, astral: two code units without the u flag
  '\u00E9',
  '\u{1F600}',
  '\u00A0',
  '\u2028',
  '\u3000',
  '\uFEFF',
  '\u180E', // MONGOLIAN VOWEL SEPARATOR: white space to some engines, not to JavaScript
  '\u0085',
  '\u0000',
  '\u0001',
  '\t',
  '\r',
  '\n',
  '\u000B',
  '\u007F',
  '\u009F',
  '\uFFFE',
  '\uFFFF',
  '\u212A', // KELVIN SIGN: folds to k under Unicode case-insensitivity
];

const python = `
import json, re, sys
job = json.load(sys.stdin)
out = {"errors": {}, "verdicts": {}}
for p in job["patterns"]:
    try:
        re.compile(p, re.ASCII)
        compiled = re.compile(p)
    except Exception as e:
        out["errors"][p] = str(e)
        continue
    out["verdicts"][p] = [compiled.search(s) is not None for s in job["probes"][p]]
json.dump(out, sys.stdout)
`;

/** Strings to judge each pattern by: some it matches (drawn from it) and their near neighbours. */
function probesFor(pattern: string, seed: number): string[] {
  let drawn: string[] = [];
  try {
    drawn = fc.sample(fc.stringMatching(new RegExp(pattern, 'u'), { size: 'small' }), { numRuns: 24, seed });
  } catch {
    // A pattern that ECMA-262 refuses is reported as such; nothing to draw from.
  }
  const near = fc.sample(fc.tuple(fc.constantFrom(...(drawn.length ? drawn : [''])), fc.nat(), fc.constantFrom(...TELLING), fc.boolean()), {
    numRuns: 160,
    seed,
  });
  const mutated = near.map(([s, at, c, insert]) => {
    const chars = [...s];
    const i = chars.length ? at % (chars.length + (insert ? 1 : 0)) : 0;
    chars.splice(i, insert ? 0 : 1, c);
    return chars.join('');
  });
  return [...new Set([...drawn, ...mutated, ...TELLING, ''])];
}

/** A string every engine can hold, and whose verdict no documented `$` difference decides. */
// With the u flag a surrogate pair is one character: what is left of category Cs is unpaired.
const comparable = (s: string) => !/\p{Cs}/u.test(s) && !s.endsWith('\n');

/** What keeps each pattern from being portable, as lines naming the pattern and the engines; empty when none. */
export function portabilityProblems(patterns: readonly string[], seed = 1): string[] {
  const problems: string[] = [];
  const show = (p: string) => JSON.stringify(p.length > 120 ? `${p.slice(0, 120)}…` : p);
  const probes: Record<string, string[]> = {};
  const verdicts: Record<string, Record<string, boolean[]>> = {};
  for (const pattern of patterns) {
    probes[pattern] = probesFor(pattern, seed).filter(comparable);
    const engines: Record<string, (s: string) => boolean> = {};
    for (const [name, make] of [
      ['ECMA-262 with u', () => new RegExp(pattern, 'u')],
      ['ECMA-262 without u', () => new RegExp(pattern)],
      ['Rust regex', () => new RRegex(pattern)],
    ] as const) {
      try {
        const compiled = make();
        engines[name] = (s) => (compiled instanceof RegExp ? compiled.test(s) : compiled.isMatch(s));
      } catch (err) {
        problems.push(`${name} refuses ${show(pattern)}: ${String(err).split('\n').slice(0, 3).join(' ')}`);
      }
    }
    verdicts[pattern] = Object.fromEntries(Object.entries(engines).map(([name, test]) => [name, probes[pattern]!.map(test)]));
    // PCRE, in UTF mode as a UTF-8 locale makes it: a compile error is exit status 2.
    const pcre = spawnSync('grep', ['-P', '-e', pattern], { input: '', encoding: 'utf8', env: { ...process.env, LC_ALL: 'C.UTF-8' } });
    if (pcre.status === 2) problems.push(`PCRE (grep -P) refuses ${show(pattern)}: ${pcre.stderr.trim()}`);
  }
  const answer = JSON.parse(
    execFileSync('python3', ['-c', python], { input: JSON.stringify({ patterns, probes }), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }),
  ) as { errors: Record<string, string>; verdicts: Record<string, boolean[]> };
  for (const [pattern, error] of Object.entries(answer.errors)) problems.push(`Python re refuses ${show(pattern)}: ${error}`);
  for (const [pattern, judged] of Object.entries(answer.verdicts)) verdicts[pattern]!['Python re'] = judged;
  for (const pattern of patterns) {
    const byEngine = Object.entries(verdicts[pattern] ?? {});
    const [reference, expected] = byEngine[0] ?? [];
    if (!expected) continue;
    probes[pattern]!.forEach((probe, i) => {
      const apart = byEngine.filter(([, judged]) => judged[i] !== expected[i]).map(([name]) => name);
      if (apart.length)
        problems.push(
          `${show(pattern)} on ${JSON.stringify(probe)}: ${reference} says ${expected[i]}, ${apart.join(' and ')} the opposite`,
        );
    });
  }
  return problems;
}
