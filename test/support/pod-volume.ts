// Which volume a pod's file setting (TLS_CERT_FILE, READ_TOKENS_FILE, …) reads from, for the Kubernetes manifest tests.
import * as assert from 'uvu/assert';
import type { IPodSpec, IVolume } from 'kubernetes-models/v1';

/** The volume behind the read-only mount of the first container that holds `path`; fails when there is none. */
export function volumeHolding(pod: IPodSpec, path: string, label: string): IVolume {
  const mount = pod.containers[0]!.volumeMounts?.find((m) => path.startsWith(`${m.mountPath}/`));
  assert.ok(mount, `${label}: ${path} is on a mounted volume`);
  assert.is(mount!.readOnly, true, `${label}: ${mount!.mountPath} is mounted read-only`);
  const volume = pod.volumes?.find((v) => v.name === mount!.name);
  assert.ok(volume, `${label}: volume ${mount!.name}`);
  return volume!;
}
