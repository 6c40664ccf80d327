/**
 * The simulators' fault injection, shared by every provider simulator and driven over the
 * control API: `POST /__sim/faults` with `{"fault": KIND, "times": N, "model"?: id}`.
 *
 * KIND:
 * - `status:<code>`           answer with the provider's own error for that status
 *                             (`status:429` carries retry-after)
 * - `delay_headers:<ms>`      wait before the response headers
 * - `delay_first_token:<ms>`  wait between the headers and the first token
 * - `reset_after_chunks:<n>`  cut the connection (TCP reset) after n stream events, or
 *                             mid-body for non-streaming answers
 * - `malformed_chunk`         the first stream event carries truncated JSON (non-streaming:
 *                             the body is truncated JSON); `malformed_chunk:<n>` corrupts
 *                             event n (0-based) instead
 * - `fragment_bytes:<n>`      (extension) every write is sent in n-byte pieces, so events and
 *                             multi-byte characters arrive split across TCP reads
 * - `error:<name>`            (extension) answer with one of the provider's named errors
 *                             (`SimulatorDefinition.namedErrors`): errors a status alone cannot
 *                             tell apart, such as MiniMax's in-band `error:1002` (HTTP 200 with a
 *                             non-zero `base_resp.status_code`) or FASHN's `error:OutOfCredits`
 */
export type FaultKind =
  | { readonly type: 'status'; readonly status: number }
  | { readonly type: 'delay_headers'; readonly ms: number }
  | { readonly type: 'delay_first_token'; readonly ms: number }
  | { readonly type: 'reset_after_chunks'; readonly chunks: number }
  | { readonly type: 'malformed_chunk'; readonly index: number }
  | { readonly type: 'fragment_bytes'; readonly bytes: number }
  | { readonly type: 'error'; readonly name: string };

export interface FaultSpec {
  readonly fault: FaultKind;
  /** Requests it still applies to. */
  remaining: number;
  readonly model?: string;
  /** As written by the client, for listings. */
  readonly text: string;
}

/** The faults one request drew: at most one of each type. */
export interface RequestFaults {
  status?: number;
  delayHeadersMs?: number;
  delayFirstTokenMs?: number;
  resetAfterChunks?: number;
  /** Index of the stream event to corrupt. */
  malformedIndex?: number;
  fragmentBytes?: number;
  /** A provider-named error to answer with. */
  errorName?: string;
}

export function parseFault(text: unknown): FaultKind | undefined {
  if (typeof text !== 'string') return undefined;
  if (text === 'malformed_chunk') return { type: 'malformed_chunk', index: 0 };
  const named = /^error:([A-Za-z0-9_]{1,40})$/.exec(text);
  if (named) return { type: 'error', name: named[1]! };
  const match =
    /^(status|delay_headers|delay_first_token|reset_after_chunks|malformed_chunk|fragment_bytes):(\d{1,7})$/.exec(text);
  if (!match) return undefined;
  const value = Number(match[2]);
  switch (match[1]) {
    case 'status':
      return value >= 100 && value <= 599 ? { type: 'status', status: value } : undefined;
    case 'delay_headers':
      return { type: 'delay_headers', ms: value };
    case 'delay_first_token':
      return { type: 'delay_first_token', ms: value };
    case 'malformed_chunk':
      return { type: 'malformed_chunk', index: value };
    case 'fragment_bytes':
      return value > 0 ? { type: 'fragment_bytes', bytes: value } : undefined;
    default:
      return { type: 'reset_after_chunks', chunks: value };
  }
}

export class FaultQueue {
  private faults: FaultSpec[] = [];

  add(spec: FaultSpec): void {
    this.faults.push(spec);
  }

  clear(): void {
    this.faults = [];
  }

  list(): { fault: string; remaining: number; model?: string }[] {
    return this.faults.map((f) => ({ fault: f.text, remaining: f.remaining, ...(f.model ? { model: f.model } : {}) }));
  }

  /** Takes, for one request, the oldest matching fault of each type. */
  draw(model: string | undefined): RequestFaults {
    const drawn: RequestFaults = {};
    const taken = new Set<string>();
    for (const spec of this.faults) {
      if (spec.remaining <= 0 || taken.has(spec.fault.type)) continue;
      if (spec.model !== undefined && spec.model !== model) continue;
      taken.add(spec.fault.type);
      spec.remaining--;
      apply(drawn, spec.fault);
    }
    this.faults = this.faults.filter((spec) => spec.remaining > 0);
    return drawn;
  }
}

function apply(drawn: RequestFaults, fault: FaultKind): void {
  switch (fault.type) {
    case 'status':
      drawn.status = fault.status;
      break;
    case 'delay_headers':
      drawn.delayHeadersMs = fault.ms;
      break;
    case 'delay_first_token':
      drawn.delayFirstTokenMs = fault.ms;
      break;
    case 'reset_after_chunks':
      drawn.resetAfterChunks = fault.chunks;
      break;
    case 'malformed_chunk':
      drawn.malformedIndex = fault.index;
      break;
    case 'fragment_bytes':
      drawn.fragmentBytes = fault.bytes;
      break;
    case 'error':
      drawn.errorName = fault.name;
      break;
  }
}
