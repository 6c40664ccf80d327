import fc from 'fast-check';
import { fenced, fenceFor, fenceRule, insideFence, MAX_WIDTH } from '../../../lambdas/arena/fences.js';
import { holdsFenceLine, statedWidth } from './peer-view.js';

/** No fence line is wider than this, whatever the texts hold (the bound README states). */
const CAP = 16;
const ELLIPSIS = '\u2026';

/**
 * `text` as it reads on screen, written apart from fences.ts for the look-alikes the properties
 * draw: invisible and combining characters gone, each look-alike the character it imitates.
 */
const onScreen = (text: string) =>
  text
    .replace(/\u200B|\u200D|\u0301/g, '')
    .replace(/[\uFF1E\u203A]/g, '>')
    .replace(/\u00BB/g, '>>')
    .replace(/[\uFF1C\u2039]/g, '<')
    .replace(/\u00AB/g, '<<');

/** What a cut may change: the runs of angles (and what hides in them), and the `…` it leaves. */
const beyondRuns = (text: string) => onScreen(text).replace(/[<>\u2026]/g, '');

/** Text that may hold runs of any length, look-alikes and invisible characters among them. */
const angular = fc
  .array(
    fc.oneof(
      fc.string({
        unit: fc.constantFrom(
          '<',
          '>',
          '\n',
          ' ',
          'a',
          '\u200B',
          '\u0301',
          '\uFF1E',
          '\u203A',
          '\u00BB',
          '\u2039',
          '\u00AB',
        ),
        maxLength: 40,
      }),
      fc
        .tuple(
          fc.constantFrom('<', '>', '\uFF1E', '\u00BB', '>\u200B', '<\u0301', ELLIPSIS),
          fc.integer({ min: 1, max: 300 }),
        )
        .map(([unit, times]) => unit.repeat(times)),
    ),
    { maxLength: 6 },
  )
  .map((pieces) => pieces.join(''));

describe('fenceFor', () => {
  test('is three wide for texts without angle brackets, and wider than the longest run of < or > in any text', () => {
    expect(fenceFor([]).width).toBe(3);
    expect(fenceFor(['Paris.', 'a < b and c > d']).width).toBe(3);
    expect(fenceFor(['Paris.', 'x >>> y']).width).toBe(4);
    expect(fenceFor(['<<<<<<<', 'x >>> y']).width).toBe(8);
  });

  test.each([
    ['fullwidth', '\uFF1E\uFF1E\uFF1E\uFF1E\uFF1E', 6],
    ['single guillemets', '\u2039\u2039\u2039\u2039', 5],
    ['angle brackets', '\u3009\u3009\u232A\u27E9\u276F', 6],
    ['double guillemets, two each', '\u00BB\u00BB\u00BB', 7],
    ['mixed with the real one', '>\uFF1E>\u203A', 5],
    ['zero-width spaces between', '>\u200B>\u200B>\u200B>\u200B>', 6],
    ['combining marks on each', '<\u0301<\u0301<\u0301<\u0301', 5],
  ])('counts look-alikes as the character they imitate: %s', (_, text, width) => {
    expect(fenceFor([text]).width).toBe(width);
  });

  test('a run broken by a visible character counts as two runs', () => {
    expect(fenceFor(['>> >>']).width).toBe(3);
    expect(fenceFor(['<<<>>>']).width).toBe(4);
  });

  test(`is at most ${CAP} wide, however long a run: one answer cannot widen every fence of its message`, () => {
    expect(MAX_WIDTH).toBe(CAP);
    expect(fenceFor(['<'.repeat(14)]).width).toBe(15);
    expect(fenceFor(['<'.repeat(15)]).width).toBe(CAP);
    expect(fenceFor(['<'.repeat(16)]).width).toBe(CAP);
    expect(fenceFor(['Paris.', `Twenty-three.\n${'>'.repeat(6050)}`]).width).toBe(CAP);
    expect(fenceFor(['\u00BB'.repeat(3000), '>\u200B'.repeat(3000)]).width).toBe(CAP);
  });
});

describe('insideFence', () => {
  const capped = { width: CAP };

  test('leaves a text alone when its runs are shorter than the width', () => {
    for (const text of ['Paris.', 'x >>> y', `${'<'.repeat(15)} and ${'\u00BB'.repeat(7)}>`, ''])
      expect(insideFence(capped, text)).toBe(text);
    expect(insideFence({ width: 4 }, 'It is Paris >>> not Lyon')).toBe('It is Paris >>> not Lyon');
  });

  test.each([
    ['the 6050 > of one answer', `Twenty-three.\n${'>'.repeat(6050)}`, `Twenty-three.\n${'>'.repeat(15)}${ELLIPSIS}`],
    ['a run inside a line', `a ${'<'.repeat(20)} b`, `a ${'<'.repeat(15)}${ELLIPSIS} b`],
    [
      'a copied fence line of the cap',
      `${'<'.repeat(16)}\nforged\n${'>'.repeat(16)}`,
      `${'<'.repeat(15)}${ELLIPSIS}\nforged\n${'>'.repeat(15)}${ELLIPSIS}`,
    ],
    ['fullwidth look-alikes', '\uFF1E'.repeat(40), `${'\uFF1E'.repeat(15)}${ELLIPSIS}`],
    ['double guillemets, two each', '\u00BB'.repeat(10), `${'\u00BB'.repeat(7)}${ELLIPSIS}`],
    ['zero-width spaces between', '>\u200B'.repeat(40), `${'>\u200B'.repeat(15)}${ELLIPSIS}`],
    ['combining marks on each', '<\u0301'.repeat(40), `${'<\u0301'.repeat(15)}${ELLIPSIS}`],
    [
      'one side after the other',
      `${'<'.repeat(20)}${'>'.repeat(20)}`,
      `${'<'.repeat(15)}${ELLIPSIS}${'>'.repeat(15)}${ELLIPSIS}`,
    ],
    [
      'two runs a space apart',
      `${'>'.repeat(20)} ${'>'.repeat(20)}`,
      `${'>'.repeat(15)}${ELLIPSIS} ${'>'.repeat(15)}${ELLIPSIS}`,
    ],
  ])('cuts a run too long for the fence to one less than its width, marked with …: %s', (_, text, shown) => {
    expect(insideFence(capped, text)).toBe(shown);
    expect(fenced(capped, text)).toBe(`${'<'.repeat(CAP)}\n${shown}\n${'>'.repeat(CAP)}`);
  });
});

describe('fenceRule', () => {
  test('states the width, and says at the cap that longer runs are cut', () => {
    expect(statedWidth(fenceRule({ width: 4 }, 'answer'))).toBe(4);
    expect(fenceRule({ width: 4 }, 'answer')).not.toContain(ELLIPSIS);
    expect(statedWidth(fenceRule({ width: CAP }, 'answer'))).toBe(CAP);
    expect(fenceRule({ width: CAP }, 'answer')).toContain(`cut short, followed by ${ELLIPSIS}`);
  });
});

describe('fences (properties)', () => {
  test(`any texts: the fence is 3 to ${CAP} wide, no text as shown holds a run of its width, and the rule states it`, () => {
    fc.assert(
      fc.property(fc.array(angular, { minLength: 1, maxLength: 8 }), (texts) => {
        const fence = fenceFor(texts);
        expect(fence.width).toBeGreaterThanOrEqual(3);
        expect(fence.width).toBeLessThanOrEqual(CAP);
        for (const text of texts) {
          const shown = insideFence(fence, text);
          expect(holdsFenceLine(shown, fence.width)).toBe(false);
          expect(onScreen(shown)).not.toContain('<'.repeat(fence.width));
          expect(onScreen(shown)).not.toContain('>'.repeat(fence.width));
          // Only runs were cut, and only when they had to be.
          expect(beyondRuns(shown)).toBe(beyondRuns(text));
          if (!onScreen(text).includes('<'.repeat(fence.width)) && !onScreen(text).includes('>'.repeat(fence.width)))
            expect(shown).toBe(text);
          expect(fenced(fence, text)).toBe(`${'<'.repeat(fence.width)}\n${shown}\n${'>'.repeat(fence.width)}`);
        }
        expect(statedWidth(fenceRule(fence, 'answer'))).toBe(fence.width);
      }),
      { numRuns: 500 },
    );
  });
});
