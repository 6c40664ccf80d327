import type { LocalGateway } from '../../../local/child-runtime.js';

export interface CapturedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: any; // provider wire bodies under test
  /** True when the gateway hung up before the simulator finished answering. */
  closedBeforeEnd?: boolean;
}

/** The control API of one of the runtime's upstream simulators (README: "Simulators"). */
export class SimulatorControl {
  constructor(readonly url: string) {}

  static of(gateway: LocalGateway, provider: string): SimulatorControl {
    const url = gateway.info.simulators[provider];
    if (!url) throw new Error(`no simulator for ${provider}`);
    return new SimulatorControl(url);
  }

  async fault(fault: string, times = 1, model?: string): Promise<void> {
    const response = await fetch(`${this.url}/__sim/faults`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ fault, times, ...(model ? { model } : {}) }),
    });
    if (response.status !== 201) throw new Error(`fault ${fault}: ${response.status} ${await response.text()}`);
  }

  /** Sets a QPS limit (null lifts it) on one limited route, or all; `restore` brings the defaults back. */
  async limits(qps: number | null | 'restore', route?: string): Promise<void> {
    const response = await fetch(`${this.url}/__sim/limits`, {
      method: qps === 'restore' ? 'DELETE' : 'POST',
      headers: { 'Content-Type': 'application/json' },
      ...(qps === 'restore' ? {} : { body: JSON.stringify({ qps, ...(route ? { route } : {}) }) }),
    });
    if (response.status !== 200) throw new Error(`limits ${qps}: ${response.status} ${await response.text()}`);
  }

  async requests(): Promise<CapturedRequest[]> {
    const response = await fetch(`${this.url}/__sim/requests`);
    return ((await response.json()) as { requests: CapturedRequest[] }).requests;
  }

  async reset(): Promise<void> {
    await fetch(`${this.url}/__sim/faults`, { method: 'DELETE' });
    await fetch(`${this.url}/__sim/requests`, { method: 'DELETE' });
  }
}

/**
 * The simulated model's default reply to a sampled request (local/simulators/script.ts): the
 * gateway always sends a temperature (0.7 unless the caller gives one), so the reply names its
 * draw, `(take 1a2b3c)`, between the model and what was said.
 */
export function simulatedReply(model: string, said: string): RegExp {
  return new RegExp(`^Simulated reply from ${escaped(model)} \\(take [0-9a-f]{6}\\) — you said: ${escaped(said)}$`);
}

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
