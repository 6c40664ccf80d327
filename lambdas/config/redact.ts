/**
 * Credentials in the shapes they can be recognised by. Handlers log ids and outcomes, never
 * headers or bodies; this is the backstop the logger applies to every string it writes, so a
 * credential that slips into an error message still never reaches CloudWatch.
 */
const CREDENTIAL_SHAPES: ReadonlyArray<readonly [RegExp, string]> = [
  // Our service keys: the prefix stays, so a line still says which kind of key it was.
  [/\b(sk|pk)_[a-z2-7]{20}_[A-Za-z0-9_-]{43}\b/g, '$1_[redacted]'],
  // The dashboard session cookie's value (an opaque id), wherever a Cookie header is echoed.
  [/\b(gw_session=)[^;,\s"]+/g, '$1[redacted]'],
  // Any bearer credential: the admin token, a key, an upstream provider's key.
  [/\b(Bearer\s+)[^\s"',;]+/gi, '$1[redacted]'],
  // Provider key shapes: OpenAI / Anthropic / OpenRouter (sk-…), xAI (xai-…), Google (AIza…).
  [/\b(sk-|xai-)[A-Za-z0-9_-]{16,}/g, '$1[redacted]'],
  [/\bAIza[0-9A-Za-z_-]{30,}/g, 'AIza[redacted]'],
  // JWTs (a Cognito access or ID token): header and claims both start `{"` in base64url.
  [/\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/g, 'eyJ[redacted]'],
  // The console distribution's edge secret, wherever its header is echoed (lambdas/identity/edge-headers.ts).
  [/(x-gateway-edge-secret"?\s*[:=]\s*"?)[^\s"',;]+/gi, '$1[redacted]'],
  // An authenticator secret in an otpauth:// URI.
  [/([?&]secret=)[A-Za-z2-7=]+/gi, '$1[redacted]'],
  // Passwords, codes, secrets and challenge sessions as a request or an SDK error would spell them in JSON.
  [
    /("(?:password|currentPassword|newPassword|totpCode|PASSWORD|NEW_PASSWORD|PreviousPassword|ProposedPassword|SecretCode|UserCode|SOFTWARE_TOKEN_MFA_CODE|Session|AccessToken)"\s*:\s*")(?:[^"\\]|\\.)*"/g,
    '$1[redacted]"',
  ],
];

export function redact(text: string): string {
  let redacted = text;
  for (const [shape, replacement] of CREDENTIAL_SHAPES) redacted = redacted.replace(shape, replacement);
  return redacted;
}
