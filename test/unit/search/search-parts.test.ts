import { publishedAfter } from '../../../lambdas/search/search-request.js';
import { SearchError } from '../../../lambdas/search/search-errors.js';
import { cutOnWordBoundary } from '../../../lambdas/search/snippet.js';

describe('cutOnWordBoundary', () => {
  it('keeps short text whole, whitespace collapsed', () => {
    expect(cutOnWordBoundary('  a\n\nb  c ')).toBe('a b c');
  });

  it('cuts on the last word that fits and marks the cut, within the limit', () => {
    const cut = cutOnWordBoundary('alpha beta gamma delta', 15);
    expect(cut).toBe('alpha beta…');
    expect(cut.length).toBeLessThanOrEqual(15);
  });

  it('cuts one long word mid-word in characters (code points), never splitting a surrogate pair', () => {
    const cut = cutOnWordBoundary('😀'.repeat(20), 10);
    expect([...cut].length).toBe(10);
    expect(cut).toBe(`${'😀'.repeat(9)}…`);
  });
});

describe('publishedAfter', () => {
  const now = new Date('2026-03-31T12:00:00.000Z');

  it.each([
    ['1d', '2026-03-30T12:00:00.000Z'],
    ['2w', '2026-03-17T12:00:00.000Z'],
    ['1m', '2026-02-28T12:00:00.000Z'], // the last day of February, not 3 March
    ['1y', '2025-03-31T12:00:00.000Z'],
    ['100y', '1926-03-31T12:00:00.000Z'],
    ['13m', '2025-02-28T12:00:00.000Z'],
  ])('%s before %s', (recency, expected) => {
    expect(publishedAfter(recency, now)).toBe(expected);
  });

  it.each(['101y', '36501d', '5201w', '1201m', '0d', 'd', '7h'])('refuses %s naming recency', (recency) => {
    let thrown: unknown;
    try {
      publishedAfter(recency, now);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(SearchError);
    expect((thrown as SearchError).details.field).toBe('recency');
  });
});
