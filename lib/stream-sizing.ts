/**
 * How the streaming routes are sized, on on-demand Lambda and on Lambda Managed Instances, from
 * what `npm run bench -- memory` measures (bench/stream-footprint.ts). Data and pure functions,
 * read by the stack, the cost model and the bench.
 *
 * Measured (Node 24, November 2026, three runs on a shared 2-core machine; the spread is the
 * machine's): a chat completion streamed for 20 s (first token at 1 s, then 1,000 chunks) costs
 * the function 98–122 ms of CPU in all, of which 0.7–1.6 ms come before the upstream's first
 * token; each open stream adds 0.2–0.55 MiB of resident memory, and the function's module base
 * (the bundle imported in a fresh process) is 85 MiB RSS with 17 MiB of V8 heap. Non-streamed,
 * the same request costs 2–3 ms of CPU. The function waits: 20 s of wall time for a tenth of a
 * second of CPU.
 *
 * On-demand Lambda: chat completions gets 224 MB (lib/routes.ts), not 1,024 MB.
 * - Memory: module base and one stream use 38% of it. 192 MB would do for the gateway's own code
 *   (44%), but every function also loads the OpenTelemetry layer's SDK at init
 *   (lib/constructs/open-telemetry-layer.ts), which this bench cannot load offline: the 32 MB more
 *   keep the same margin for it, and room for the largest body API Gateway lets through (10 MB)
 *   while it is parsed. Check "Max Memory Used" in the function's REPORT lines after a deploy.
 * - First byte: Lambda's CPU share at 224 MB is 0.127 vCPU, so the 0.7–1.6 ms before the first
 *   token stretch to 5.5–12.6 ms, 4–10 ms later than at 1,024 MB, against a model's own first
 *   token of 300 ms to seconds. A cold start stretches the same way if the Init phase gets the
 *   same share: the 0.2–0.4 s import becomes 1.6–3.2 s (0.35–0.7 s at 1,024 MB), once per
 *   environment, the layer's own start on top.
 * - Cost: $58.33 of compute a million 20 s streams instead of $266.67; with API Gateway, DynamoDB,
 *   logs, X-Ray and WAF, $65.66 (`npm run cost`), under the $70 aimed at. 256 MB would cost $74.
 * The chat modes (battle, fight, the legacy chat) get 512 MB, not 1,024 MB: a blitz fight of one
 * round, eight agents streaming at once for 23–26 s, costs 0.9 s of CPU (12–14 ms before the first
 * token) and 3–6 MiB of memory on an 87 MiB module base. At 512 MB (0.289 vCPU) that is 12–15% of
 * the function's CPU on average, 18% of its memory, and the first byte 21–24 ms later than at
 * 1,024 MB; every second of a fight costs half. The other streaming routes keep their memory:
 * speech encodes audio, the leaderboard fits its ratings after the answer, and this bench
 * measures neither.
 *
 * Managed Instances (MANAGED_INSTANCES_SIZING): one vCPU at 50% holds about 90–100 such streams
 * by CPU and thousands by memory, so the Node.js default of 64 concurrent requests an environment
 * is kept.
 */

/** Lambda gives a function CPU in proportion to its memory: one full vCPU at 1,769 MB. */
export const LAMBDA_MB_PER_VCPU = 1769;

export const lambdaVcpuShare = (memoryMb: number): number => memoryMb / LAMBDA_MB_PER_VCPU;

/** What the bench checks the chosen sizes against. */
export const SIZING_TARGETS = Object.freeze({
  /** Module base plus one open stream, as a share of the function's memory: room for a larger answer. */
  maxMemoryUse: 0.6,
  /**
   * The first byte may come at most this much later than at today's 1,024 MB: a model's own first
   * token takes 300 ms to several seconds, so this is under a tenth of what the caller waits anyway.
   */
  maxAddedFirstByteMs: 30,
  /**
   * A chat mode's function busy on average over a fight, as a share of its CPU: eight streams'
   * chunks arrive in bursts, so half of the share is kept for them.
   */
  maxChatModeCpuBusy: 0.5,
});

/** A Managed Instances execution environment for the streaming routes, and how many streams it holds. */
export const MANAGED_INSTANCES_SIZING = Object.freeze({
  /** Lambda Managed Instances' smallest function memory. */
  memoryMb: 2048,
  /** The smallest ratio Lambda allows (2 GiB a vCPU): the most CPU for the 2 GiB, one vCPU. */
  memoryGiBPerVcpu: 2,
  /**
   * PerExecutionEnvironmentMaxConcurrency: Node.js's default on Managed Instances (64 a vCPU).
   * The measured CPU and memory of a stream would allow more; the default keeps the event loop's
   * latency for each stream's chunks short, and the cost target holds with it.
   */
  perEnvironmentConcurrency: 64,
  /** What the capacity provider's scaling aims at: CPU left for bursts of chunk work. */
  targetCpuUtilization: 0.5,
  /** Lambda keeps at least this many environments per function (one per Availability Zone). */
  minExecutionEnvironments: 3,
});

export interface StreamFootprint {
  /** CPU milliseconds one stream costs, start to end. */
  readonly cpuMsPerStream: number;
  readonly streamSeconds: number;
  /** Resident memory one more open stream adds. */
  readonly rssPerStreamBytes: number;
  /** The function's resident memory with no request open. */
  readonly baseBytes: number;
}

/** How many such streams one Managed Instances environment holds, by its CPU and by its memory. */
export function streamsPerExecutionEnvironment(footprint: StreamFootprint): { byCpu: number; byMemory: number } {
  const mi = MANAGED_INSTANCES_SIZING;
  const vcpus = mi.memoryMb / 1024 / mi.memoryGiBPerVcpu;
  const cpuPerStream = footprint.cpuMsPerStream / (footprint.streamSeconds * 1000);
  const memoryBytes = mi.memoryMb * 1024 * 1024;
  return {
    byCpu: Math.floor((vcpus * mi.targetCpuUtilization) / cpuPerStream),
    byMemory: Math.floor((memoryBytes * 0.8 - footprint.baseBytes) / Math.max(1, footprint.rssPerStreamBytes)),
  };
}

/**
 * What a Managed Instances instance keeps for itself (its OS and Lambda's agent): one vCPU and
 * 1 GiB, not available to execution environments (AWS's Lambda Managed Instances guidance).
 */
export const INSTANCE_RESERVE = Object.freeze({ vcpus: 1, memoryGiB: 1 });

/** How many execution environments of this shape fit one instance, after its reserve. */
export function environmentsPerInstance(
  instance: { readonly vcpus: number; readonly memoryGiB: number },
  environment: { readonly memoryMb: number; readonly memoryGiBPerVcpu: number },
): number {
  const memoryGiB = environment.memoryMb / 1024;
  const vcpus = memoryGiB / environment.memoryGiBPerVcpu;
  return Math.max(
    0,
    Math.min(
      Math.floor((instance.vcpus - INSTANCE_RESERVE.vcpus) / vcpus),
      Math.floor((instance.memoryGiB - INSTANCE_RESERVE.memoryGiB) / memoryGiB),
    ),
  );
}
