import {
  generateKey,
  hashKey,
  KEY_PREFIXES,
  parseKey,
  secretsEqual,
  verifyKey,
} from '../../../lambdas/identity/api-key-format.js';

const SECRET_KEY = /^sk_[a-z2-7]{20}_[A-Za-z0-9_-]{43}$/;
const PUBLISHABLE_KEY = /^pk_[a-z2-7]{20}_[A-Za-z0-9_-]{43}$/;

/** The same key with the character at `index` replaced by another of the same alphabet. */
function changeChar(key: string, index: number): string {
  const replacement = key[index] === 'a' ? 'b' : 'a';
  return key.slice(0, index) + replacement + key.slice(index + 1);
}

describe('generateKey', () => {
  test('secret keys have the documented shape, with the key id embedded', () => {
    for (let i = 0; i < 50; i++) {
      const key = generateKey('secret');
      expect(key.key).toMatch(SECRET_KEY);
      expect(key.type).toBe('secret');
      expect(key.keyId).toMatch(/^[a-z2-7]{20}$/);
      expect(key.key.startsWith(`sk_${key.keyId}_`)).toBe(true);
      expect(key.hash).toBe(hashKey(key.key));
    }
  });

  test('publishable keys likewise', () => {
    const key = generateKey('publishable');
    expect(key.key).toMatch(PUBLISHABLE_KEY);
    expect(key.key.startsWith(`${KEY_PREFIXES.publishable}${key.keyId}_`)).toBe(true);
  });

  test('keys, ids and hashes differ per key', () => {
    const keys = Array.from({ length: 200 }, () => generateKey('secret'));
    expect(new Set(keys.map((key) => key.key)).size).toBe(200);
    expect(new Set(keys.map((key) => key.keyId)).size).toBe(200);
    expect(new Set(keys.map((key) => key.hash)).size).toBe(200);
  });

  test('the hash is not the key and does not contain the secret', () => {
    const key = generateKey('secret');
    const secret = key.key.split('_').slice(2).join('_');
    expect(key.hash).not.toContain(secret);
    expect(key.hash).toMatch(/^[A-Za-z0-9_-]{43}$/); // SHA-256, base64url
  });
});

describe('parseKey', () => {
  test('accepts generated keys and reports their type and id', () => {
    const secret = generateKey('secret');
    const publishable = generateKey('publishable');
    expect(parseKey(secret.key)).toEqual({ type: 'secret', keyId: secret.keyId });
    expect(parseKey(publishable.key)).toEqual({ type: 'publishable', keyId: publishable.keyId });
  });

  const valid = `sk_${'a'.repeat(20)}_${'A'.repeat(43)}`;

  test('accepts a well-formed key with any secret alphabet character', () => {
    expect(parseKey(valid)).toEqual({ type: 'secret', keyId: 'a'.repeat(20) });
    expect(parseKey(`pk_${'234567abcdefghijklmn'}_${'-_'.repeat(21)}z`)).toEqual({
      type: 'publishable',
      keyId: '234567abcdefghijklmn',
    });
  });

  test.each([
    ['empty', ''],
    ['wrong prefix', valid.replace('sk_', 'xk_')],
    ['upper-case prefix', valid.replace('sk_', 'SK_')],
    ['key id too short', `sk_${'a'.repeat(19)}_${'A'.repeat(43)}`],
    ['key id too long', `sk_${'a'.repeat(21)}_${'A'.repeat(43)}`],
    ['key id outside base32', `sk_${'a'.repeat(19)}1_${'A'.repeat(43)}`],
    ['upper-case key id', `sk_${'A'.repeat(20)}_${'A'.repeat(43)}`],
    ['secret too short', `sk_${'a'.repeat(20)}_${'A'.repeat(42)}`],
    ['secret too long', `sk_${'a'.repeat(20)}_${'A'.repeat(44)}`],
    ['secret with padding', `sk_${'a'.repeat(20)}_${'A'.repeat(42)}=`],
    ['secret with +', `sk_${'a'.repeat(20)}_${'A'.repeat(42)}+`],
    ['leading space', ` ${valid}`],
    ['trailing newline', `${valid}\n`],
    ['missing separator', `sk_${'a'.repeat(20)}${'A'.repeat(44)}`],
  ])('rejects %s', (_label, candidate) => {
    expect(parseKey(candidate)).toBeUndefined();
  });
});

describe('verifyKey', () => {
  test('true for the key against its own hash', () => {
    const key = generateKey('secret');
    expect(verifyKey(key.key, key.hash)).toBe(true);
  });

  test('false when any one character changes: in the secret, the key id or the prefix', () => {
    const key = generateKey('secret');
    expect(verifyKey(changeChar(key.key, key.key.length - 1), key.hash)).toBe(false);
    expect(verifyKey(changeChar(key.key, 3), key.hash)).toBe(false);
    expect(verifyKey(`p${key.key.slice(1)}`, key.hash)).toBe(false);
  });

  test('false against another key’s hash, and against a malformed stored hash without throwing', () => {
    const one = generateKey('secret');
    const two = generateKey('secret');
    expect(verifyKey(one.key, two.hash)).toBe(false);
    expect(verifyKey(one.key, '')).toBe(false);
    expect(verifyKey(one.key, 'short')).toBe(false);
  });
});

describe('secretsEqual', () => {
  test('true only for identical strings, whatever the lengths', () => {
    expect(secretsEqual('admin-token-1', 'admin-token-1')).toBe(true);
    expect(secretsEqual('admin-token-1', 'admin-token-2')).toBe(false);
    expect(secretsEqual('short', 'a much longer secret')).toBe(false);
    expect(secretsEqual('', 'x')).toBe(false);
    expect(secretsEqual('', '')).toBe(true);
  });
});
