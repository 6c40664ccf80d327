import { redact } from '../../../lambdas/config/redact.js';

const SERVICE_KEY = `sk_${'a'.repeat(20)}_${'Z'.repeat(43)}`;

test.each([
  ['our service keys, prefix kept', `key ${SERVICE_KEY} refused`, 'key sk_[redacted] refused'],
  ['a bearer credential (admin token)', 'Authorization: Bearer abcDEF123_-xyz', 'Authorization: Bearer [redacted]'],
  ['the session cookie value', 'cookie gw_session=q1w2e3r4t5y6; other=1', 'cookie gw_session=[redacted]; other=1'],
  ['an OpenAI-style provider key', 'upstream said sk-proj-ABCDEFGHIJKLMNOPQRST', 'upstream said sk-[redacted]'],
  ['an xAI key', 'xai-ABCDEFGHIJKLMNOPQRSTUV', 'xai-[redacted]'],
  ['a Google key', 'key=AIzaSyA1234567890abcdefghijklmnopqrstu', 'key=AIza[redacted]'],
])('redacts %s', (_name, text, expected) => {
  expect(redact(text)).toBe(expected);
});

test('leaves ordinary text alone', () => {
  const text = 'route chat-completions answered 200 in 12 ms (disk-usage ok, task-id 42)';
  expect(redact(text)).toBe(text);
});
