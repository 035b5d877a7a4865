#!/usr/bin/env bash
# A multi-node Docker Swarm on one machine, for trying and testing the stack across nodes (docs/containers.md#on-more-than-one-node):
#
#   eval "$(bash scripts/swarm-nodes.sh --nodes 3 IMAGE...)"   # 3 Engines, one swarm; DOCKER_HOST names its manager
#   bash scripts/swarm-nodes.sh --kill 2       # node 2's dockerd, containerd and containers SIGKILLed at once
#   bash scripts/swarm-nodes.sh --cut 2        # node 2's link down: everything on it runs on, unreachable
#   bash scripts/swarm-nodes.sh --restore 2    # its link up and, if it was killed, its dockerd started again
#   bash scripts/swarm-nodes.sh --stop         # every node, namespace, link and file this script made, gone
#
# Each node is a dockerd of its own (own --data-root, --exec-root, --pidfile, socket, cgroup) in a network namespace
# of its own, shk-node-K, joined by a veth pair to a bridge in the namespace shk-swarm-hub, on the private
# 192.168.213.0/24 (SWARM_SUBNET): node K is .(10+K), and this machine reaches them as .1 through one more veth pair
# (shk-swarm0). Node 1 runs `docker swarm init --advertise-addr` on its address, the others join as workers. The
# IMAGEs, read from the Engine the shell points at (scripts/container-engine.sh), are loaded into every node
# (docker save | docker load); `--load IMAGE...` loads more later. The Engine binaries are the ones that script
# unpacked (or dockerd on the PATH). Nothing else is touched: not that Engine, not its swarm, no other address.
# The names (namespaces, links, cgroups, node host names) are the machine's, whatever SWARM_NODES_DIR says: one
# multi-node swarm per machine. A --nodes run while one is up, under any SWARM_NODES_DIR, is refused with one line
# and touches nothing; --stop removes only what was made under its own SWARM_NODES_DIR, the lock file last.
# SWARM_HUB_NAMESPACE names the hub namespace, the mark of a swarm being up (test/swarm-nodes.test.ts gives its own,
# so its refusal case never touches a real swarm started beside it).
# Needs root. Progress goes to stderr, the `export` line to stdout; a failure is one line, exit 1 (a bad argument:
# exit 2), and a --nodes run that failed removes what it made.
set -euo pipefail

work=${SWARM_NODES_DIR:-/var/lib/service-health-kit/swarm}
engine=${CONTAINER_ENGINE_DIR:-/var/lib/service-health-kit/engine}
subnet=${SWARM_SUBNET:-192.168.213}
hub=${SWARM_HUB_NAMESPACE:-shk-swarm-hub}
host_link=shk-swarm0
cgroup_root=/sys/fs/cgroup/unified
[ -f "$cgroup_root/cgroup.procs" ] || cgroup_root=/sys/fs/cgroup
# The docker client of the unpacked Engine, where there is one.
[ ! -x "$engine/root/usr/bin/docker" ] || PATH=$engine/root/usr/bin:$PATH
MAX_NODES=9
ANSWER_S=60
JOIN_S=60
USAGE="usage: bash scripts/swarm-nodes.sh --nodes N [IMAGE...] | --load IMAGE... | --kill K | --cut K | --restore K | --stop"

say() { printf 'swarm-nodes: %s\n' "$*" >&2; }
fail() {
  say "$*"
  exit 1
}
usage_error() {
  say "$* ($USAGE)"
  exit 2
}

node_ns() { printf 'shk-node-%s' "$1"; }
node_dir() { printf '%s/node-%s' "$work" "$1"; }
node_addr() { printf '%s.%s' "$subnet" "$((10 + $1))"; }
node_cgroup() { printf '%s/shk-swarm-node-%s' "$cgroup_root" "$1"; }
node_docker() {
  local k=$1
  shift
  timeout 60 docker -H "unix://$(node_dir "$k")/docker.sock" "$@"
}
# How many nodes the swarm that is up has (0: none), from the file --nodes writes last.
node_count() { cat "$work/nodes" 2>/dev/null || echo 0; }

# --- one node's Engine ----------------------------------------------------------------------------------------

engine_env() {
  local multiarch
  if [ -x "$engine/root/usr/sbin/dockerd" ]; then
    multiarch=$(ls -d "$engine"/root/usr/lib/*-linux-gnu* 2>/dev/null | head -n1 || true)
    printf '%s\n' "PATH=$engine/root/usr/bin:$engine/root/usr/sbin:$PATH" "LD_LIBRARY_PATH=$multiarch" \
      "XTABLES_LIBDIR=$multiarch/xtables"
  else
    command -v dockerd >/dev/null 2>&1 || fail "no dockerd: run scripts/container-engine.sh first"
    printf '%s\n' "PATH=$PATH"
  fi
}

# Starts node K's dockerd in its namespace. `ip netns exec` mounts a fresh /sys, without the cgroup file system
# dockerd needs ("Devices cgroup isn't mounted"), so cgroup2 is mounted there first; the daemon and everything it
# starts live in the node's own cgroup, which --kill empties with one write.
start_dockerd() {
  local k=$1 dir cgroup
  dir=$(node_dir "$k")
  cgroup=$(node_cgroup "$k")
  mkdir -p "$dir/data" "$dir/exec" "$cgroup/engine"
  local -a env_lines
  mapfile -t env_lines < <(engine_env)
  # setsid: the daemon outlives this script; 9>&-: it must not hold the lock.
  # unshare --uts: the node's own host name (shk-node-K), which `docker node ls` shows and placements can name.
  setsid ip netns exec "$(node_ns "$k")" unshare --uts env "${env_lines[@]}" sh -c '
    hostname "shk-node-$1" && mount -t cgroup2 cgroup2 /sys/fs/cgroup &&
      echo $$ >"/sys/fs/cgroup/shk-swarm-node-$1/engine/cgroup.procs" &&
      exec dockerd --data-root "$2/data" --exec-root "$2/exec" --pidfile "$2/dockerd.pid" -H "unix://$2/docker.sock" \
        --cgroup-parent "/shk-swarm-node-$1" --host-gateway-ip "$3"' sh "$k" "$dir" "$(node_addr "$k")" \
    >"$dir/dockerd.log" 2>&1 </dev/null 9>&- &
  local deadline=$((SECONDS + ANSWER_S))
  until node_docker "$k" version --format '{{.Server.Version}}' >/dev/null 2>&1; do
    [ "$SECONDS" -lt "$deadline" ] || fail "node $k's dockerd did not answer within $ANSWER_S s (see $dir/dockerd.log)"
    sleep 0.5
  done
}

# SIGKILLs every process of node K at once (dockerd, containerd, shims, containers): a machine that died.
kill_node() {
  local cgroup
  cgroup=$(node_cgroup "$1")
  [ -d "$cgroup" ] || return 0
  echo 1 >"$cgroup/cgroup.kill"
  for _ in $(seq 1 100); do
    [ -z "$(cat "$cgroup"/cgroup.procs "$cgroup"/*/cgroup.procs 2>/dev/null)" ] && break
    sleep 0.1
  done
  rm -f "$(node_dir "$1")/dockerd.pid" "$(node_dir "$1")/docker.sock"
}

# --- the network ----------------------------------------------------------------------------------------------

in_ns() {
  local ns=$1
  shift
  ip netns exec "$ns" "$@"
}

make_hub() {
  ip route get "$subnet.1" 2>/dev/null | grep -q -E '^local|dev lo' && fail "$subnet.1 is already an address here"
  if ip route | grep -q "^$subnet\.0/24"; then fail "$subnet.0/24 is already routed here (SWARM_SUBNET picks another)"; fi
  # From here on the hub and the host's link are this run's: what --stop and a failed run may remove.
  touch "$work/hub"
  ip netns add "$hub"
  in_ns "$hub" ip link set lo up
  in_ns "$hub" ip link add br0 type bridge
  in_ns "$hub" ip link set br0 up
  ip link add "$host_link" type veth peer name host netns "$hub"
  in_ns "$hub" ip link set host master br0 up
  ip addr add "$subnet.1/24" dev "$host_link"
  ip link set "$host_link" up
}

make_node_net() {
  local k=$1 ns
  ns=$(node_ns "$k")
  ip netns add "$ns"
  in_ns "$ns" ip link set lo up
  in_ns "$hub" ip link add "n$k" type veth peer name eth0 netns "$ns"
  in_ns "$hub" ip link set "n$k" master br0 up
  in_ns "$ns" ip addr add "$(node_addr "$k")/24" dev eth0
  in_ns "$ns" ip link set eth0 up
}

# --- the swarm ------------------------------------------------------------------------------------------------

form_swarm() {
  local n=$1 token k
  node_docker 1 swarm init --advertise-addr "$(node_addr 1)" --listen-addr "$(node_addr 1):2377" >/dev/null ||
    fail "docker swarm init on node 1 failed (see $(node_dir 1)/dockerd.log)"
  token=$(node_docker 1 swarm join-token -q worker)
  for k in $(seq 2 "$n"); do
    node_docker "$k" swarm join --advertise-addr "$(node_addr "$k")" --listen-addr "$(node_addr "$k"):2377" \
      --token "$token" "$(node_addr 1):2377" >/dev/null || fail "node $k could not join the swarm (see $(node_dir "$k")/dockerd.log)"
  done
  local deadline=$((SECONDS + JOIN_S))
  until [ "$(node_docker 1 node ls --format '{{.Status}}' | grep -c '^Ready$')" -eq "$n" ]; do
    [ "$SECONDS" -lt "$deadline" ] || fail "the swarm did not have $n nodes Ready within $JOIN_S s"
    sleep 0.5
  done
}

# Copies IMAGEs from the Engine the shell points at to every node: saved once, loaded on all nodes at once (each
# load is mostly its own dockerd unpacking layers, so they overlap rather than queue).
load_images() {
  [ $# -gt 0 ] || return 0
  local archive=$work/images.tar k
  local -a loads=()
  docker image inspect "$@" >/dev/null 2>&1 || fail "not every image is in the Engine DOCKER_HOST names: $*"
  say "copying $# image(s) to $(node_count) nodes"
  docker save -o "$archive" "$@" || fail "docker save $* failed"
  for k in $(seq 1 "$(node_count)"); do
    timeout 600 docker -H "unix://$(node_dir "$k")/docker.sock" load -q -i "$archive" >/dev/null &
    loads[k]=$!
  done
  for k in "${!loads[@]}"; do
    wait "${loads[k]}" || fail "docker load on node $k failed"
  done
  rm -f "$archive"
}

# --- stop -----------------------------------------------------------------------------------------------------

# Removes everything this script made, whatever state it is in; safe to run when nothing is up.
remove_all() {
  local k dir
  for dir in "$work"/node-*; do
    [ -d "$dir" ] || continue
    k=${dir##*/node-}
    kill_node "$k"
    # A cgroup whose last task is still exiting refuses rmdir (busy) for a moment.
    for _ in $(seq 1 50); do
      rmdir "$(node_cgroup "$k")"/*/ "$(node_cgroup "$k")" 2>/dev/null || true
      [ -d "$(node_cgroup "$k")" ] || break
      sleep 0.1
    done
    ip netns del "$(node_ns "$k")" 2>/dev/null || true
    rm -rf "$dir"
  done
  if [ -f "$work/hub" ]; then
    ip link del "$host_link" 2>/dev/null || true
    ip netns del "$hub" 2>/dev/null || true
  fi
  rm -f "$work/nodes" "$work/images.tar" "$work/hub"
}

# Whether anything made under $work is left: node directories, the hub, the count.
made_here() { [ -f "$work/nodes" ] || [ -f "$work/hub" ] || compgen -G "$work/node-*" >/dev/null; }

# Holds $work/lock on fd 9. --stop deletes the file while holding it, so a run that waited on the deleted file
# checks that the file it holds is still the one at the path, and opens it anew when not.
hold_lock() {
  for _ in 1 2 3; do
    mkdir -p "$work"
    exec 9>>"$work/lock"
    flock -w 600 9 || fail "$work/lock was held for 10 min by another run"
    [ "$(stat -c %i "$work/lock" 2>/dev/null)" != "$(stat -L -c %i /proc/$$/fd/9)" ] || return 0
    exec 9>&-
  done
  fail "$work/lock kept being removed under this run"
}

# --- main -----------------------------------------------------------------------------------------------------

[ $# -gt 0 ] || usage_error "no command"
command=$1
shift
case "$command" in
  --nodes)
    n=${1:-}
    [[ "$n" =~ ^[0-9]+$ ]] && [ "$n" -ge 1 ] && [ "$n" -le "$MAX_NODES" ] || usage_error "--nodes takes a count from 1 to $MAX_NODES, not \"$n\""
    shift
    ;;
  --kill | --cut | --restore)
    k=${1:-}
    [ $# -eq 1 ] && [[ "$k" =~ ^[0-9]+$ ]] || usage_error "$command takes one node number"
    ;;
  --load) [ $# -gt 0 ] || usage_error "--load takes one or more images" ;;
  --stop) [ $# -eq 0 ] || usage_error "--stop takes no argument" ;;
  *) usage_error "unknown argument \"$command\"" ;;
esac
[ "$(id -u)" -eq 0 ] || fail "needs root (network namespaces, veth pairs and a dockerd per node)"
hold_lock

up=$(node_count)
case "$command" in
  --stop)
    if made_here; then
      remove_all
      say "removed the $up-node swarm, its namespaces, links and files"
    else
      say "no swarm of this script is up under $work"
    fi
    # The lock last, held until here; then the directory, if nothing else is in it.
    rm -f "$work/lock"
    rmdir "$work" 2>/dev/null || true
    exit 0
    ;;
  --nodes) ;;
  *)
    [ "$up" -gt 0 ] || fail "no swarm of this script is up (--nodes N starts one)"
    if [ "$command" != --load ] && { [ "$k" -lt 1 ] || [ "$k" -gt "$up" ]; }; then
      fail "there is no node $k (nodes 1 to $up are up)"
    fi
    ;;
esac
case "$command" in
  --load) load_images "$@" ;;
  --kill) kill_node "$k" && say "node $k killed: its dockerd and containers SIGKILLed" ;;
  --cut) in_ns "$hub" ip link set "n$k" down && say "node $k cut off: its link is down" ;;
  --restore)
    in_ns "$hub" ip link set "n$k" up
    if ! node_docker "$k" version >/dev/null 2>&1; then start_dockerd "$k"; fi
    say "node $k restored: link up, dockerd answering"
    ;;
  --nodes)
    [ "$up" -eq 0 ] || fail "a $up-node swarm is already up under $work (manager socket $(node_dir 1)/docker.sock); --stop removes it"
    # Another SWARM_NODES_DIR's swarm holds the same names: one per machine.
    if ip netns list | grep -q "^$hub\b"; then
      fail "a swarm of this script is already up on this machine (namespace $hub): one per machine;" \
        "--stop with its SWARM_NODES_DIR removes it"
    fi
    # A run that fails half-way leaves nothing behind.
    trap 'code=$?; if [ "$code" -ne 0 ]; then remove_all; fi' EXIT
    make_hub
    for k in $(seq 1 "$n"); do
      make_node_net "$k"
      say "starting node $k's dockerd at $(node_addr "$k") (log $(node_dir "$k")/dockerd.log)"
      start_dockerd "$k"
    done
    printf '%s\n' "$n" >"$work/nodes"
    form_swarm "$n"
    load_images "$@"
    say "$n nodes Ready in one swarm; node 1 ($(node_addr 1)) is its manager"
    printf 'export DOCKER_HOST=%q\n' "unix://$(node_dir 1)/docker.sock"
    ;;
esac
