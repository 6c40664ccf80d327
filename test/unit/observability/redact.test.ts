import { redact } from '../../../lambdas/config/redact.js';

const SERVICE_KEY = `sk_${'a'.repeat(20)}_${'Z'.repeat(43)}`;

test.each([
  ['our service keys, prefix kept', `key ${SERVICE_KEY} refused`, 'key sk_[redacted] refused'],
  ['a bearer credential (admin token)', 'Authorization: Bearer abcDEF123_-xyz', 'Authorization: Bearer [redacted]'],
  ['the session cookie value', 'cookie gw_session=q1w2e3r4t5y6; other=1', 'cookie gw_session=[redacted]; other=1'],
  ['an OpenAI-style provider key', 'upstream said sk-proj-ABCDEFGHIJKLMNOPQRST', 'upstream said sk-[redacted]'],
  ['an xAI key', 'xai-ABCDEFGHIJKLMNOPQRSTUV', 'xai-[redacted]'],
  ['a Google key', 'key=AIzaSyA1234567890abcdefghijklmnopqrstu', 'key=AIza[redacted]'],
  [
    'a JWT (a Cognito token)',
    'token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZGEifQ.c2lnbmF0dXJl end',
    'token eyJ[redacted] end',
  ],
  [
    "the console distribution's edge secret, as a header or in JSON",
    'x-gateway-edge-secret: Q1w2E3r4T5y6U7i8 {"x-gateway-edge-secret":"Q1w2E3r4T5y6U7i8","host":"h"}',
    'x-gateway-edge-secret: [redacted] {"x-gateway-edge-secret":"[redacted]","host":"h"}',
  ],
  [
    'an authenticator secret in its otpauth URI',
    'otpauth://totp/Gw:ada%40example.com?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&issuer=Gw',
    'otpauth://totp/Gw:ada%40example.com?secret=[redacted]&issuer=Gw',
  ],
  [
    'passwords, codes and Cognito fields in JSON',
    '{"email":"a@b.c","password":"Pa\\"ss-1","totpCode":"123456","SecretCode":"JBSWY3DP","Session":"AYAB"}',
    '{"email":"a@b.c","password":"[redacted]","totpCode":"[redacted]","SecretCode":"[redacted]","Session":"[redacted]"}',
  ],
])('redacts %s', (_name, text, expected) => {
  expect(redact(text)).toBe(expected);
});

test('leaves ordinary text alone', () => {
  const text = 'route chat-completions answered 200 in 12 ms (disk-usage ok, task-id 42)';
  expect(redact(text)).toBe(text);
});
