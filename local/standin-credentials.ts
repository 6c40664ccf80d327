import { randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StandInCredentials } from './standins/signature-check.js';

/**
 * The AWS credentials of one data folder's local runtime: its handlers' SDK clients sign with
 * them and its stand-ins accept nothing else, so a process that can reach loopback but not
 * read the folder cannot read the secrets. Made at random on the first start and kept, owner
 * only, for later starts and for tools that call the stand-ins (tests, the AWS CLI with
 * `--endpoint-url`).
 */
export const STANDIN_CREDENTIALS_FILE = 'standin-credentials.json';
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export function ensureStandInCredentials(dataDir: string): StandInCredentials {
  const file = join(dataDir, STANDIN_CREDENTIALS_FILE);
  const made: StandInCredentials = {
    // AKIA-like: 20 characters of A-Z and 2-7, so tools that check the shape accept it.
    accessKeyId: `LOCA${Array.from(randomBytes(16), (byte) => BASE32[byte & 31]).join('')}`,
    secretAccessKey: randomBytes(30).toString('base64'),
  };
  try {
    // `wx`: keys already kept are never replaced.
    writeFileSync(file, `${JSON.stringify(made, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    return made;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  // A copy restored from a backup may have lost its mode: the keys are only the owner's.
  chmodSync(file, 0o600);
  return readStandInCredentials(dataDir);
}

export function readStandInCredentials(dataDir: string): StandInCredentials {
  const file = join(dataDir, STANDIN_CREDENTIALS_FILE);
  const kept = JSON.parse(readFileSync(file, 'utf8')) as Partial<StandInCredentials>;
  if (typeof kept.accessKeyId !== 'string' || typeof kept.secretAccessKey !== 'string' || !kept.secretAccessKey)
    throw new Error(`${file}: not the stand-ins' credentials; delete it to have new ones made`);
  return { accessKeyId: kept.accessKeyId, secretAccessKey: kept.secretAccessKey };
}
