// Narrows parsed JSON to a plain object, so service answers are read field by field and never trusted whole.

export type JsonObject = Record<string, unknown>;

export const asObject = (value: unknown): JsonObject | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonObject) : undefined;
