/**
 * An `enum` keyword whose failure says the allowed values (`must be one of mp3, wav`), where
 * ajv's own words would only say "must be equal to one of the allowed values".
 */
export const enumOf = (values: readonly (string | number)[]) => ({
  enum: [...values],
  'x-message': { enum: `must be one of ${values.join(', ')}` },
});
