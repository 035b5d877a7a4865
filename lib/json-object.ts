// The one guard for parsed JSON that must be a plain object (not null, not an array), read field by field after.

export type JsonObject = Record<string, unknown>;

export const isJsonObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The value as a plain object, or undefined for anything else (null, an array, a string…). */
export const asObject = (value: unknown): JsonObject | undefined => (isJsonObject(value) ? value : undefined);
