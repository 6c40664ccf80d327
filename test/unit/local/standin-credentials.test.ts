import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ensureStandInCredentials,
  readStandInCredentials,
  STANDIN_CREDENTIALS_FILE,
} from '../../../local/standin-credentials.js';

/** Each data folder's runtime has keys of its own, made once, readable by its owner only. */
const folders: string[] = [];
const folder = () => {
  const dir = mkdtempSync(join(tmpdir(), 'standin-credentials-'));
  folders.push(dir);
  return dir;
};
afterAll(() => folders.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const modeOf = (dir: string) => statSync(join(dir, STANDIN_CREDENTIALS_FILE)).mode & 0o777;

test('made at random on the first start, owner-only, and the same on every later start', () => {
  const dir = folder();
  const first = ensureStandInCredentials(dir);
  expect(first.accessKeyId).toMatch(/^LOCA[A-Z2-7]{16}$/);
  expect(first.secretAccessKey.length).toBeGreaterThanOrEqual(40);
  expect(modeOf(dir)).toBe(0o600);
  expect(ensureStandInCredentials(dir)).toEqual(first);
  expect(readStandInCredentials(dir)).toEqual(first);
  expect(ensureStandInCredentials(folder())).not.toEqual(first);
});

test('a kept file that lost its mode is made owner-only again', () => {
  const dir = folder();
  const kept = ensureStandInCredentials(dir);
  chmodSync(join(dir, STANDIN_CREDENTIALS_FILE), 0o644);
  expect(ensureStandInCredentials(dir)).toEqual(kept);
  expect(modeOf(dir)).toBe(0o600);
});
