import type { PredictionStatus } from '../providers/fashion/fashn-wire.js';

/** The `data` of fashion responses (spec 2.12 and 4.10), snake_case as callers read them. */

export interface FashionRunData {
  readonly prediction_id: string;
  readonly status: 'starting';
  readonly model_name: string;
  /** Epoch milliseconds. */
  readonly created_at: number;
}

export interface FashionStatusData {
  readonly prediction_id: string;
  readonly status: PredictionStatus['status'];
  readonly output: readonly string[] | null;
  readonly error: { readonly name: string; readonly message: string } | null;
}

/** A failed prediction is `status: 'failed'` with its error, inside `success: true` (spec 4.10). */
export function fashionStatusData(status: PredictionStatus): FashionStatusData {
  return { prediction_id: status.id, status: status.status, output: status.output, error: status.error };
}
