import { DEFAULT_WRITE_BEHIND_MS, readConfiguration } from '../../../lambdas/config/configuration.js';

const NAME = 'STORE_WRITE_BEHIND_MS';
const writeBehindMs = (value?: string) => readConfiguration(value === undefined ? {} : { [NAME]: value }).writeBehindMs;

test('unset, the window suits a Lambda instance', () => {
  expect(writeBehindMs()).toBe(DEFAULT_WRITE_BEHIND_MS);
});

test('set, it is taken as milliseconds', () => {
  expect(writeBehindMs('20')).toBe(20);
  expect(writeBehindMs('0')).toBe(0);
});

test.each(['-1', '1.5', 'soon', '1001'])('%s is refused by name', (value) => {
  expect(() => writeBehindMs(value)).toThrow(`${NAME} must be an integer from 0 to 1000, not ${value}`);
});
