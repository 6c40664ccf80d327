import { fashionJobDriver } from '../fashion/fashion-job-driver.js';
import { videoJobDriver } from '../media/video-job-driver.js';
import type { JobDriver } from './job-driver.js';

export type JobDrivers = ReadonlyMap<string, JobDriver>;

/** A registry by kind; two drivers claiming one kind is a wiring bug, refused at load. */
export function jobDrivers(drivers: readonly JobDriver[]): JobDrivers {
  const byKind = new Map<string, JobDriver>();
  for (const driver of drivers) {
    if (byKind.has(driver.kind)) throw new Error(`two job drivers for kind ${driver.kind}`);
    byKind.set(driver.kind, driver);
  }
  return byKind;
}

/**
 * The job kinds the deployment runs: the poll functions serve exactly these. A kind registers
 * by adding its driver here (and its submit route calls startJob with `kind: driver.kind`).
 */
export const JOB_DRIVERS: JobDrivers = jobDrivers([videoJobDriver, fashionJobDriver]);
