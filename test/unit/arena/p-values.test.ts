import fc from 'fast-check';
import { binomialTwoSidedPValue, chiSquareSurvival, logGamma } from '../../../lambdas/arena/p-values.js';

/** The two-sided binomial p-value summed directly in doubles: fine for small n, and no shared code. */
function directBinomial(x: number, n: number, p: number): number {
  const pmf: number[] = [];
  let coefficient = 1;
  for (let k = 0; k <= n; k++) {
    pmf.push(coefficient * p ** k * (1 - p) ** (n - k));
    coefficient = (coefficient * (n - k)) / (k + 1);
  }
  return Math.min(
    1,
    pmf.filter((value) => value <= pmf[x]! * (1 + 1e-7)).reduce((sum, value) => sum + value, 0),
  );
}

/** For even degrees of freedom 2m, P(X >= x) = exp(-x/2) * sum_{i<m} (x/2)^i / i!. */
function evenChiSquare(x: number, df: number): number {
  let term = 1;
  let sum = 0;
  for (let i = 0; i < df / 2; i++) {
    sum += term;
    term *= x / 2 / (i + 1);
  }
  return Math.exp(-x / 2) * sum;
}

describe('logGamma', () => {
  test('matches log factorials and Gamma(1/2) = sqrt(pi)', () => {
    let logFactorial = 0;
    for (let n = 1; n <= 170; n++) {
      logFactorial += Math.log(n);
      expect(logGamma(n + 1)).toBeCloseTo(logFactorial, 9);
    }
    expect(logGamma(0.5)).toBeCloseTo(Math.log(Math.sqrt(Math.PI)), 12);
    expect(logGamma(1)).toBeCloseTo(0, 12);
  });
});

describe('binomialTwoSidedPValue', () => {
  test('known values (as R binom.test gives them)', () => {
    expect(binomialTwoSidedPValue(8, 10, 0.5)).toBeCloseTo(112 / 1024, 12);
    expect(binomialTwoSidedPValue(5, 10, 0.5)).toBe(1);
    expect(binomialTwoSidedPValue(60, 100, 0.5)).toBeCloseTo(0.05688793, 7);
    expect(binomialTwoSidedPValue(0, 0, 0.5)).toBe(1);
    expect(binomialTwoSidedPValue(0, 10, 0.5)).toBeCloseTo(2 / 1024, 12);
  });

  test('agrees with direct summation for small n (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 150 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.constantFrom(1 / 2, 1 / 3, 1 / 4, 1 / 8),
        (n, at, p) => {
          const x = Math.min(n, Math.floor(at * (n + 1)));
          const expected = directBinomial(x, n, p);
          const actual = binomialTwoSidedPValue(x, n, p);
          expect(Math.abs(actual - expected)).toBeLessThanOrEqual(1e-9 * expected + 1e-300);
        },
      ),
    );
  });

  test('large n: close to the chi-square test of the same counts, and far tails stay positive', () => {
    const n = 100_000;
    for (const x of [50_200, 50_400, 50_800, 51_000]) {
      const statistic = (x - n / 2) ** 2 / (n / 4);
      const exact = binomialTwoSidedPValue(x, n, 0.5);
      expect(exact / chiSquareSurvival(statistic, 1)).toBeGreaterThan(0.9);
      expect(exact / chiSquareSurvival(statistic, 1)).toBeLessThan(1.1);
    }
    const far = binomialTwoSidedPValue(53_000, n, 0.5);
    expect(far).toBeGreaterThan(0);
    expect(far).toBeLessThan(1e-70);
    expect(binomialTwoSidedPValue(50_000, n, 0.5)).toBeCloseTo(1, 9);
  });
});

describe('chiSquareSurvival', () => {
  test('matches the closed form for even degrees of freedom, deep into the tail (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }).map((m) => 2 * m),
        fc.double({ min: 0.01, max: 1400, noNaN: true }),
        (df, x) => {
          const expected = evenChiSquare(x, df);
          const actual = chiSquareSurvival(x, df);
          if (expected < 1e-290) expect(actual).toBeLessThan(1e-280);
          else expect(Math.abs(actual - expected) / expected).toBeLessThan(1e-9);
        },
      ),
    );
  });

  test('the textbook critical values for one degree of freedom, and 1 at zero', () => {
    expect(chiSquareSurvival(3.841458820694124, 1)).toBeCloseTo(0.05, 10);
    expect(chiSquareSurvival(6.6348966010212145, 1)).toBeCloseTo(0.01, 10);
    expect(chiSquareSurvival(10.827566170662733, 1)).toBeCloseTo(0.001, 10);
    expect(chiSquareSurvival(0, 3)).toBe(1);
  });
});
