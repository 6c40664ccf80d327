import { signedPost, SigV4Signer, type Credentials } from './signed-request.js';

/**
 * STS AssumeRole with session tags, and nothing else: the Query protocol (a form POST, an XML
 * answer) signed with the function role's credentials, as the small DynamoDB client does. The
 * AWS SDK's STS client is not a dependency of the functions, and one operation with four answer
 * fields does not need it. Locally only the endpoint differs (AWS_ENDPOINT_URL_STS).
 */
export interface AssumeRoleRequest {
  readonly roleArn: string;
  readonly sessionName: string;
  readonly durationSeconds: number;
  readonly tags: Readonly<Record<string, string>>;
}

export interface SessionCredentials extends Credentials {
  readonly sessionToken: string;
  /** Epoch ms. */
  readonly expiresAt: number;
}

export type AssumeRole = (request: AssumeRoleRequest) => Promise<SessionCredentials>;

/** An STS refusal, named as STS names it (`AccessDenied`, `ValidationError`, `Throttling`...). */
export class StsError extends Error {
  constructor(
    name: string,
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = name;
  }
}

export interface StsClientOptions {
  readonly region: string;
  readonly endpoint: string;
  /** The caller's own credentials, read for every call (Lambda may rotate them). */
  readonly credentials: () => Credentials;
  readonly timeoutMs?: number;
  readonly maxAttempts?: number;
}

const RETRYABLE = new Set(['Throttling', 'ThrottlingException', 'RequestLimitExceeded', 'InternalFailure']);

export function createAssumeRole(options: StsClientOptions): AssumeRole {
  const url = new URL(options.endpoint);
  const signer = new SigV4Signer(options.region, 'sts');
  const maxAttempts = options.maxAttempts ?? 3;
  return async (request) => {
    const body = formOf(request);
    for (let attempt = 1; ; attempt++) {
      try {
        return credentialsOf(await post(url, body, signer, options.credentials(), options.timeoutMs ?? 3_000));
      } catch (error) {
        const retryable = !(error instanceof StsError) || RETRYABLE.has(error.name) || error.status >= 500;
        if (!retryable || attempt >= maxAttempts) throw error;
        await new Promise((done) => setTimeout(done, Math.random() * 50 * 2 ** attempt));
      }
    }
  };
}

function formOf(request: AssumeRoleRequest): string {
  const form = new URLSearchParams({
    Action: 'AssumeRole',
    Version: '2011-06-15',
    RoleArn: request.roleArn,
    RoleSessionName: request.sessionName,
    DurationSeconds: String(request.durationSeconds),
  });
  Object.entries(request.tags).forEach(([key, value], index) => {
    form.set(`Tags.member.${index + 1}.Key`, key);
    form.set(`Tags.member.${index + 1}.Value`, value);
  });
  return form.toString();
}

async function post(url: URL, body: string, signer: SigV4Signer, credentials: Credentials, timeoutMs: number) {
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded; charset=utf-8',
    host: url.host,
  };
  const { status, text } = await signedPost(url, headers, body, signer, credentials, timeoutMs, 'STS');
  if (status < 300) return text;
  throw new StsError(field(text, 'Code') ?? 'UnknownError', field(text, 'Message') ?? `STS answered ${status}`, status);
}

function credentialsOf(xml: string): SessionCredentials {
  const accessKeyId = field(xml, 'AccessKeyId');
  const secretAccessKey = field(xml, 'SecretAccessKey');
  const sessionToken = field(xml, 'SessionToken');
  const expiresAt = Date.parse(field(xml, 'Expiration') ?? '');
  if (!accessKeyId || !secretAccessKey || !sessionToken || Number.isNaN(expiresAt))
    throw new StsError('InternalFailure', 'an AssumeRole answer without its credentials', 500);
  return { accessKeyId, secretAccessKey, sessionToken, expiresAt };
}

/** One element's text: the answers' fields are unique, plain and XML-escaped. */
function field(xml: string, name: string): string | undefined {
  const text = new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1];
  return text
    ?.replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');
}
