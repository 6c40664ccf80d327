/**
 * The sound every simulated audio answer carries: a 440 Hz sine at a quarter of full scale,
 * mono, 16-bit. Real samples rather than silence, so a client's decoder has something to decode
 * and a test can tell a truncated file from a whole one.
 */
const TONE_HZ = 440;
const AMPLITUDE = 0.25 * 32767;

export function toneSamples(sampleRate: number, durationMs: number): Int16Array {
  const count = Math.max(1, Math.round((sampleRate * durationMs) / 1000));
  const samples = new Int16Array(count);
  const step = (2 * Math.PI * TONE_HZ) / sampleRate;
  for (let i = 0; i < count; i++) samples[i] = Math.round(AMPLITUDE * Math.sin(step * i));
  return samples;
}
