// What `kubectl kustomize DIR` makes of deploy/k8s's kustomizations, as far as the tests read it: the resources
// (files, or folders with a kustomization of their own), then each component's strategic-merge patches. Namespace,
// labels and images are left as written: the tests read the manifests' own fields.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { strategicMerge } from './strategic-merge.ts';

export type Manifest = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
} & Record<string, any>;

interface Kustomization {
  kind: 'Kustomization' | 'Component';
  resources?: string[];
  components?: string[];
  patches?: { path: string }[];
}

const readDocuments = (file: string) => parseAllDocuments(readFileSync(file, 'utf8')).map((d) => d.toJS());

export const readKustomization = (dir: string) => readDocuments(join(dir, 'kustomization.yaml'))[0] as Kustomization;

const sameObject = (a: Manifest, b: Manifest) =>
  a.apiVersion === b.apiVersion && a.kind === b.kind && a.metadata.name === b.metadata.name;

/** Applies a component's patches, each to the one manifest of its kind and name (kustomize fails without one). */
function applyComponent(manifests: Manifest[], dir: string): Manifest[] {
  const component = readKustomization(dir);
  if (component.kind !== 'Component') throw new Error(`${dir} is a ${component.kind}, not a Component`);
  let patched = manifests;
  for (const { path } of component.patches ?? []) {
    for (const patch of readDocuments(join(dir, path)) as Manifest[]) {
      if (!patched.some((m) => sameObject(m, patch)))
        throw new Error(`${path}: no ${patch.kind} ${patch.metadata.name}`);
      patched = patched.map((m) => (sameObject(m, patch) ? (strategicMerge(m, patch) as Manifest) : m));
    }
  }
  return patched;
}

/** The manifests the kustomization in `dir` builds: its resources, then its components in order. */
export function kustomizeBuild(dir: string): Manifest[] {
  const kustomization = readKustomization(dir);
  const resources = (kustomization.resources ?? []).flatMap((entry) =>
    entry.endsWith('.yaml') ? (readDocuments(join(dir, entry)) as Manifest[]) : kustomizeBuild(join(dir, entry)),
  );
  return (kustomization.components ?? []).reduce((built, entry) => applyComponent(built, join(dir, entry)), resources);
}
