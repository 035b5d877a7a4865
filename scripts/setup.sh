#!/usr/bin/env bash
# Installs what running and testing need on a fresh Debian machine: Chromium and its old headless shell (the smoke's
# LOAD probe drives the shell where installed: half the CPU a page costs Chromium; smoke/browser.test.ts launches both),
# socat (serial tests), curl (the frontend's container check), prometheus (its promtool and server: the metrics
# and alert-rule tests), prometheus-alertmanager (amtool and the server: the alert routing tests), wrk (the probe
# throughput bench's C load generator), haproxy (the swarm stack's load balancer, run by the TLS suite test), then
# the npm packages. Safe to run twice.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || need+=(chromium)
command -v chromium-headless-shell >/dev/null 2>&1 || need+=(chromium-headless-shell)
command -v socat >/dev/null 2>&1 || need+=(socat)
command -v curl >/dev/null 2>&1 || need+=(curl)
{ command -v promtool && command -v prometheus; } >/dev/null 2>&1 || need+=(prometheus)
{ command -v amtool && command -v prometheus-alertmanager; } >/dev/null 2>&1 || need+=(prometheus-alertmanager)
command -v wrk >/dev/null 2>&1 || need+=(wrk)
command -v haproxy >/dev/null 2>&1 || need+=(haproxy)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing: ${need[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi

npm ci --no-audit --no-fund
