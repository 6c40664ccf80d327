import { DEFAULT_WRITE_BEHIND_MS, writeBehindMs } from '../../../lambdas/store/write-behind.js';

const NAME = 'STORE_WRITE_BEHIND_MS';
afterEach(() => delete process.env[NAME]);

test('unset, the window suits a Lambda instance', () => {
  expect(writeBehindMs()).toBe(DEFAULT_WRITE_BEHIND_MS);
});

test('set, it is taken as milliseconds', () => {
  process.env[NAME] = '20';
  expect(writeBehindMs()).toBe(20);
  process.env[NAME] = '0';
  expect(writeBehindMs()).toBe(0);
});

test.each(['-1', '1.5', 'soon', '1001'])('%s is refused by name', (value) => {
  process.env[NAME] = value;
  expect(() => writeBehindMs()).toThrow(`${NAME} must be an integer from 0 to 1000, not ${value}`);
});
