import type { RenderableDocument } from '../model';
import { undrawable, undrawableCharacters } from './fonts';

describe('undrawable characters', () => {
  test('Latin, Greek, Cyrillic and the usual signs draw; CJK and Devanagari do not', () => {
    expect(undrawableCharacters('Łódź Straße, Ελληνική, ООО «Пример» € – ½')).toEqual([]);
    expect(undrawableCharacters('株式会社 東京')).toEqual(['株', '式', '会', '社', '東', '京']);
    expect(undrawableCharacters('नमस्ते Ltd')).toContain('न');
    expect(undrawableCharacters('line one\nline two\t')).toEqual([]);
  });

  test('each field with some is named by its path in the model, lines by their index', () => {
    const doc = {
      number: 'INV-1',
      seller: { name: 'Acme Ltd', address_lines: ['1 Main St', null] },
      buyer: { name: '株式会社テスト', address_lines: ['東京都', 'Chiyoda'] },
      lines: [{ name: 'Widget' }, { name: 'Tea', description: '緑茶' }],
      notes: 'Thanks',
    } as unknown as RenderableDocument;
    expect(undrawable(doc).map((u) => u.field)).toEqual(['buyer.name', 'buyer.address_lines', 'lines[1].description']);
    expect(undrawable(doc)[2]!.characters).toEqual(['緑', '茶']);
  });
});
