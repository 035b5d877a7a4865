#!/bin/sh
# nested-userns.sh DEPTH COMMAND...: runs COMMAND as uid/gid 1000 inside DEPTH nested user namespaces (needs root).
# Linux allows 32 levels of user namespaces, so at depth 32 nothing inside can create one: Chromium's namespace
# sandbox then cannot start, for real, as where AppArmor restricts unprivileged user namespaces (Ubuntu 23.10+).
set -eu
depth=$1
shift
if [ "$depth" -eq 0 ]; then exec setpriv --reuid=1000 --regid=1000 --clear-groups "$@"; fi
# The child waits until this level has written its uid map, then goes one level deeper.
unshare --user sh -c '
  tries=0
  while [ -z "$(cat /proc/self/uid_map)" ]; do
    tries=$((tries + 1)); [ "$tries" -lt 500 ] || { echo "nested-userns: no uid map" >&2; exit 97; }
    sleep 0.01
  done
  exec sh "$0" "$@"' "$0" $((depth - 1)) "$@" &
child=$!
tries=0
until [ "$(readlink "/proc/$child/ns/user" 2>/dev/null || true)" != "$(readlink /proc/self/ns/user)" ] && [ -e "/proc/$child/uid_map" ]; do
  tries=$((tries + 1)); [ "$tries" -lt 500 ] || { echo "nested-userns: child never entered its namespace" >&2; kill "$child"; exit 98; }
  sleep 0.01
done
echo '0 0 65536' > "/proc/$child/gid_map"
echo '0 0 65536' > "/proc/$child/uid_map"
wait "$child"
