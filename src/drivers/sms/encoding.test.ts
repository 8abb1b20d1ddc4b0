import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { encodingOf, smsParts, splitSms } from './encoding.ts';

describe('SMS encoding and parts', () => {
  test('GSM-7 text: 160 septets is one part, 161 is two (153 per part)', () => {
    assert.deepEqual(smsParts(''), { encoding: 'gsm7', parts: 1 });
    assert.deepEqual(smsParts('a'.repeat(160)), { encoding: 'gsm7', parts: 1 });
    assert.deepEqual(smsParts('a'.repeat(161)), { encoding: 'gsm7', parts: 2 });
    assert.deepEqual(smsParts('a'.repeat(306)), { encoding: 'gsm7', parts: 2 });
    assert.deepEqual(smsParts('a'.repeat(307)), { encoding: 'gsm7', parts: 3 });
    assert.deepEqual(smsParts('Hello @ £5, ÄÖÑÜ§¿ äöñüà èéùìò ΔΦΓΛΩΠΨΣΘΞ\n'), { encoding: 'gsm7', parts: 1 });
  });

  test('the extension table (€[]{}^~\\| and form feed) stays GSM-7 but counts two septets', () => {
    for (const char of '€[]{}^~\\|\f') assert.equal(encodingOf(`x${char}`), 'gsm7', JSON.stringify(char));
    assert.deepEqual(smsParts('€'.repeat(80)), { encoding: 'gsm7', parts: 1 });
    assert.deepEqual(smsParts('€'.repeat(81)), { encoding: 'gsm7', parts: 2 });
    assert.deepEqual(smsParts(`${'a'.repeat(159)}€`), { encoding: 'gsm7', parts: 2 });
  });

  test('any character outside GSM-7 makes the text UCS-2: 70 units one part, 67 per part', () => {
    assert.equal(encodingOf('Привет'), 'ucs2');
    assert.equal(encodingOf('naïve'), 'ucs2'); // ï is not in the GSM alphabet
    assert.deepEqual(smsParts('ж'.repeat(70)), { encoding: 'ucs2', parts: 1 });
    assert.deepEqual(smsParts('ж'.repeat(71)), { encoding: 'ucs2', parts: 2 });
    assert.deepEqual(smsParts('ж'.repeat(134)), { encoding: 'ucs2', parts: 2 });
    assert.deepEqual(smsParts('ж'.repeat(135)), { encoding: 'ucs2', parts: 3 });
  });

  test('a character outside the BMP (emoji) counts as two UCS-2 units', () => {
    assert.deepEqual(smsParts('😀'.repeat(35)), { encoding: 'ucs2', parts: 1 });
    assert.deepEqual(smsParts('😀'.repeat(36)), { encoding: 'ucs2', parts: 2 });
  });

  test('splitting never cuts an escaped character or a surrogate pair, and keeps the whole text', () => {
    const gsm = `${'a'.repeat(152)}€${'b'.repeat(10)}`;
    const split = splitSms(gsm);
    assert.deepEqual(split.parts.map((p) => p.length), [152, 11]);
    assert.equal(split.parts.join(''), gsm);
    const emoji = `${'ж'.repeat(66)}😀${'ж'.repeat(10)}`;
    const parts = splitSms(emoji).parts;
    assert.deepEqual(parts, ['ж'.repeat(66), `😀${'ж'.repeat(10)}`]);
    const long = 'x'.repeat(1000);
    const pieces = splitSms(long).parts;
    assert.equal(pieces.length, 7);
    assert.ok(pieces.slice(0, -1).every((p) => p.length === 153));
    assert.equal(pieces.join(''), long);
  });
});
