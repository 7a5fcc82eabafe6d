import { z } from 'zod';
import { operations } from './catalogue';
import {
  dateField,
  dateTimeField,
  invalidUnicodeMessage,
  money,
  orgIdField,
  percentage,
  plainString,
  quantity,
  text,
  textProblem,
  userIdText,
} from './fields';

describe('field schemas', () => {
  it('reads org ids from numbers and numeric strings', () => {
    expect(orgIdField.parse('42')).toBe(42);
    expect(orgIdField.parse(42)).toBe(42);
    expect(orgIdField.safeParse('4x2').success).toBe(false);
    expect(orgIdField.safeParse(0).success).toBe(false);
    expect(orgIdField.safeParse(1.5).success).toBe(false);
  });

  it('carries a body userid into request metadata as text, and no userid as none', () => {
    expect(userIdText('u7')).toBe('u7');
    expect(userIdText(7)).toBe('7');
    expect(userIdText(undefined)).toBeUndefined();
    expect(userIdText(null)).toBeUndefined();
    expect(userIdText({ a: 1 })).toBe('{"a":1}');
  });

  it('keeps money exact as a decimal string', () => {
    expect(money().parse(0.1)).toBe('0.1');
    expect(money().parse('12.30')).toBe('12.30');
    expect(money().parse(1e21 / 1e20)).toBe('10');
    expect(quantity().parse(1e-4)).toBe('0.0001');
  });

  it('refuses too many decimals, bounds and non-numbers', () => {
    expect(money().safeParse(1.005).success).toBe(false);
    expect(money({ min: 0 }).safeParse(-1).success).toBe(false);
    expect(quantity({ positive: true }).safeParse(0).success).toBe(false);
    expect(money().safeParse('abc').success).toBe(false);
    expect(money().safeParse(Number.NaN).success).toBe(false);
    expect(money().safeParse(1e15).success).toBe(false);
    expect(money().parse('999999999999.99')).toBe('999999999999.99');
    expect(quantity().safeParse('12345678901.0001').success).toBe(false);
    expect(quantity().parse('9999999999.9999')).toBe('9999999999.9999');
    expect(percentage().safeParse(100.5).success).toBe(false);
    expect(percentage().parse('15')).toBe('15');
  });

  it('gives a bad decimal one message, the most basic that applies', () => {
    const messages = (v: unknown) => {
      const r = quantity({ min: 0, positive: true }).safeParse(v);
      return r.success ? [] : r.error.issues.map((i) => i.message);
    };
    expect(messages('abc')).toHaveLength(1);
    expect(messages(-1)).toEqual(['must be at least 0']);
    expect(messages('0.00001')).toEqual(['must have at most 4 decimal places']);
  });

  it('accepts only real dates and date-times in the documented forms', () => {
    expect(dateField.parse('2024-02-29')).toBe('2024-02-29');
    expect(dateField.safeParse('2023-02-29').success).toBe(false);
    expect(dateField.safeParse('2024-2-9').success).toBe(false);
    expect(dateTimeField.parse('2024-01-31T23:59:59')).toBe('2024-01-31T23:59:59');
    expect(dateTimeField.safeParse('2024-01-31T24:00:00').success).toBe(false);
    expect(dateTimeField.safeParse('2024-01-31').success).toBe(false);
    expect(z.object({ d: dateField }).safeParse({ d: 20240101 }).success).toBe(false);
  });
});

describe('text a person types', () => {
  const line = plainString();
  const multi = plainString('multiline');
  const refused = (s: z.ZodType, v: string) => {
    const r = s.safeParse(v);
    return r.success ? undefined : r.error.issues.map((i) => i.message);
  };

  it('keeps ordinary text, accents, emoji and other scripts', () => {
    for (const v of ['Acme', 'Café Müller', 'Ĳssel ß', '日本語', 'مرحبا', '😀👍🏽', 'a\u00A0b', '', ' spaced ']) {
      expect(line.parse(v)).toBe(v);
      expect(multi.parse(v)).toBe(v);
    }
  });

  it('refuses every control character in single-line text', () => {
    for (let c = 0; c <= 0x9f; c++) {
      if (c > 0x1f && c < 0x7f) continue;
      expect(refused(line, `a${String.fromCharCode(c)}b`)).toEqual(['must not contain control characters']);
    }
  });

  it('keeps tab, line feed and CRLF in multi-line text and refuses every other control character', () => {
    expect(multi.parse('line 1\nline 2\r\n\tindented')).toBe('line 1\nline 2\r\n\tindented');
    for (let c = 0; c <= 0x9f; c++) {
      if ((c > 0x1f && c < 0x7f) || c === 0x09 || c === 0x0a) continue;
      expect(refused(multi, `a${String.fromCharCode(c)}b`)).toEqual(['must not contain control characters other than tab and line breaks']);
    }
    expect(refused(multi, 'ends with CR\r')).toBeDefined();
    expect(refused(multi, 'CR\rinside')).toBeDefined();
  });

  it('refuses unpaired surrogates and the noncharacters U+FFFE and U+FFFF, keeps pairs', () => {
    for (const v of ['\uD800', 'a\uD83Db', '\uDE00x', 'x\uDE00\uD83D', '\uFFFE', 'a\uFFFF']) {
      expect(refused(line, v)).toEqual([invalidUnicodeMessage]);
      expect(refused(multi, v)).toEqual([invalidUnicodeMessage]);
    }
    expect(line.parse('\uD83D\uDE00')).toBe('😀');
  });

  it('gives one message per field: a refused character stops the length and format checks', () => {
    expect(refused(text(3), 'abcdef\u0000')).toEqual(['must not contain control characters']);
    expect(refused(dateField, '2024-01-01\u0000')).toEqual(['must not contain control characters']);
    expect(refused(text(3), 'abcd')).toEqual(['must be at most 3 characters']);
    // Characters, as varchar(n) counts them, not UTF-16 units.
    expect(text(3).parse('😀😀😀')).toBe('😀😀😀');
    expect(refused(text(3), '😀😀😀😀')).toEqual(['must be at most 3 characters']);
  });

  it('names the problem of a string with textProblem', () => {
    expect(textProblem('ok')).toBeUndefined();
    expect(textProblem('a\tb')).toBe('must not contain control characters');
    expect(textProblem('a\tb', 'multiline')).toBeUndefined();
    expect(textProblem('\uD800', 'multiline')).toBe(invalidUnicodeMessage);
  });
});

/** Every string schema reachable from `schema`, found by walking zod's definitions (keys of records too). */
function stringSchemas(schema: z.ZodType, seen = new Set<unknown>()): z.ZodType[] {
  if (seen.has(schema)) return [];
  seen.add(schema);
  const def = (schema as unknown as { _zod: { def: Record<string, any> } })._zod.def;
  if (def.type === 'string') return [schema];
  const children: z.ZodType[] = [];
  if (def.type === 'object') children.push(...Object.values<z.ZodType>(def.shape));
  if (def.type === 'array') children.push(def.element);
  if (def.type === 'record') children.push(def.keyType, def.valueType);
  if (def.type === 'union') children.push(...def.options);
  if (def.type === 'pipe') children.push(def.in, def.out);
  if (def.innerType) children.push(def.innerType);
  return children.flatMap((c) => stringSchemas(c, seen));
}

describe('every request string', () => {
  it('is built on plainString: refuses NUL, a C1 control and a lone surrogate, whichever operation carries it', () => {
    let count = 0;
    for (const op of operations) {
      for (const s of stringSchemas(op.request)) {
        count++;
        for (const bad of ['1\u0000', '1\u0085', '1\uD800']) {
          expect({ op: op.name, bad, ok: s.safeParse(bad).success }).toEqual({ op: op.name, bad, ok: false });
        }
      }
    }
    expect(count).toBeGreaterThan(50);
  });
});
