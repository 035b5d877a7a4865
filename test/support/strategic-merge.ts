// Kubernetes' strategic merge, the part deploy/k8s's patches use: maps merge, and a list of objects merges item by
// item on its merge key (env and containers by name, mounts by path, ports by number); anything else is replaced.
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const isObject = (value: Json | undefined): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The merge key Kubernetes declares for the list under `field` (core/v1 types), or undefined: replace the list. */
function mergeKey(field: string, item: JsonObject): string | undefined {
  if (field === 'ports') return 'containerPort' in item ? 'containerPort' : 'port'; // a container's, or a Service's
  if (field === 'volumeMounts') return 'mountPath';
  if (field === 'containers' || field === 'env' || field === 'volumes') return 'name';
  return undefined;
}

function mergeList(field: string, base: Json[], patch: Json[]): Json[] {
  const key = isObject(patch[0]) ? mergeKey(field, patch[0]) : undefined;
  if (!key) return patch;
  const merged = [...base];
  for (const item of patch) {
    if (!isObject(item) || !(key in item)) throw new Error(`a ${field} item without its merge key ${key}`);
    const at = merged.findIndex((old) => isObject(old) && old[key] === item[key]);
    if (at === -1) merged.push(item);
    else merged[at] = strategicMerge(merged[at]!, item);
  }
  return merged;
}

/** `base` with `patch` merged in; neither is changed. Deletions (null, `$patch`, `$retainKeys`, …) are refused. */
export function strategicMerge(base: Json, patch: Json): Json {
  if (!isObject(base) || !isObject(patch)) return structuredClone(patch);
  const merged: JsonObject = structuredClone(base);
  for (const [field, value] of Object.entries(patch)) {
    if (field.startsWith('$')) throw new Error(`strategic merge directive ${field} is not supported here`);
    if (value === null) throw new Error(`${field}: null (a deletion) is not supported here`);
    const old = merged[field];
    if (Array.isArray(old) && Array.isArray(value)) merged[field] = mergeList(field, old, value);
    else merged[field] = old === undefined ? structuredClone(value) : strategicMerge(old, value);
  }
  return merged;
}
