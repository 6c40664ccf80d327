import type { FashionPrediction } from './fashion-jobs.js';

/** The `data` of fashion responses (docs/interface.md §2.12 and §4.10), snake_case as callers read them. */

/** Run's answer: the new prediction, `starting`. */
export function fashionRunData(prediction: FashionPrediction) {
  return {
    prediction_id: prediction.predictionId,
    status: prediction.status,
    model_name: prediction.modelName,
    created_at: prediction.createdAt,
  };
}

/**
 * Status's answer: the four fields of docs/interface.md §4.10 plus the rest of §2.12's
 * prediction. A failed prediction is `status: 'failed'` with its error, inside `success: true`.
 */
export function fashionStatusData(prediction: FashionPrediction) {
  return { ...fashionRunData(prediction), output: prediction.output, error: prediction.error };
}
