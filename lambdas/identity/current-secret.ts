import { readSecret, rereadSecret } from '../store/secret-values.js';
import { secretsEqual } from './api-key-format.js';

/**
 * Whether a presented value is a Secrets Manager secret's current value (the admin token, the
 * console distribution's edge secret): compared in constant time with the instance's kept copy,
 * then, when that does not match, with the secret read afresh unless the copy is younger than
 * `rereadMs`. A just-replaced secret is accepted at once, while a stream of wrong values costs at
 * most one Secrets Manager call per `rereadMs` on an instance.
 */
export async function isCurrentSecret(candidate: string, secretId: string, rereadMs: number): Promise<boolean> {
  if (secretsEqual(candidate, await readSecret(secretId))) return true;
  return secretsEqual(candidate, await rereadSecret(secretId, rereadMs));
}
