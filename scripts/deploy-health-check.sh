#!/usr/bin/env bash
# Post-deploy health check (docs/contract.md#post-deploy-verification): GET the deployed backend's /api/health
# until it answers 200, at most <retries> tries with a pause between them; one line per try; exit 1 once every
# try has failed.
#
#   scripts/deploy-health-check.sh <host> <retries>
#     host     a name or address, with :port if not 8443 (the cloud backend port, HTTPS), or a URL http(s)://host[:port];
#              without a scheme, port 8443 means https:// and any other port http://
#     retries  how many tries, a whole number from 1
#   env: HEALTH_PATH (/api/health), RETRY_DELAY_S (10), REQUEST_TIMEOUT_S (5),
#        HEALTH_CA_FILE (a private CA's certificate to verify the backend's with; unset: the system's CAs)
#   exit: 0 healthy, 1 not healthy after <retries> tries, 2 bad arguments or curl missing
set -uo pipefail

name=deploy-health-check
usage() {
  echo "$name: $1" >&2
  echo "usage: $0 <host> <retries>   e.g. $0 app.example.com 3" >&2
  exit 2
}

[ $# -eq 2 ] || usage "expected 2 arguments, got $#"
host=$1
retries=$2
path=${HEALTH_PATH:-/api/health}
delay=${RETRY_DELAY_S:-10}
timeout=${REQUEST_TIMEOUT_S:-5}
[ -n "$host" ] || usage "host is empty"
[[ $retries =~ ^[1-9][0-9]*$ ]] || usage "retries must be a whole number from 1, got '$retries'"
[[ $delay =~ ^[0-9]+(\.[0-9]+)?$ ]] || usage "RETRY_DELAY_S must be a number of seconds, got '$delay'"
[[ $timeout =~ ^[0-9]+(\.[0-9]+)?$ ]] || usage "REQUEST_TIMEOUT_S must be a number of seconds, got '$timeout'"
[[ $path == /* ]] || usage "HEALTH_PATH must start with /, got '$path'"
command -v curl >/dev/null 2>&1 || { echo "$name: curl is not installed" >&2; exit 2; }
ca=${HEALTH_CA_FILE:-}
[ -z "$ca" ] || [ -r "$ca" ] || usage "HEALTH_CA_FILE cannot be read: give the path of the CA's certificate file"

# host, host:port, [v6], [v6]:port, or a URL; without a port, the cloud backend's 8443 (docs/contract.md#ports),
# which speaks HTTPS only.
case $host in
  http://* | https://*) base=${host%/} ;;
  \[*\]) base="https://$host:8443" ;;
  *\]:8443 | [!\[]*:8443) base="https://$host" ;;
  \[*\]:*) base="http://$host" ;;
  *:*:*) usage "write an IPv6 address in brackets, e.g. [$host]" ;;
  *:*) base="http://$host" ;;
  *) base="https://$host:8443" ;;
esac
tls=()
[ -z "$ca" ] || tls=(--cacert "$ca")
url=$base$path
# Printed with *** for its password and secret query values, by lib/redact-url.ts's rule: CI logs are read widely.
shown=$(printf '%s' "$url" | sed -E \
  -e 's|^([a-z][a-z0-9+.-]*://[^:/@?#]*):[^/]*@|\1:***@|I' \
  -e 's/([?&#])(sig|auth|[^=&#?]*(pass|pwd|secret|token|key|credential|signature)[^=&#?]*)=[^&#]*/\1\2=***/Ig')

errors=$(mktemp)
trap 'rm -f "$errors"' EXIT

for ((try = 1; try <= retries; try++)); do
  status=$(curl --silent --show-error --output /dev/null --write-out '%{http_code}' \
    --max-time "$timeout" "${tls[@]}" "$url" 2>"$errors")
  code=$?
  if [ $code -eq 0 ] && [ "$status" = 200 ]; then
    echo "$name: try $try/$retries: $shown answered 200: healthy"
    exit 0
  fi
  if [ $code -ne 0 ]; then
    # curl says e.g. "curl: (7) Failed to connect to ...": keep the words, name the exit code once.
    why="failed: $(sed -E '1s/^curl: \([0-9]+\) //;q' "$errors") (curl exit $code)"
  else
    why="answered $status"
  fi
  echo "$name: try $try/$retries: $shown $why"
  [ "$try" -lt "$retries" ] && sleep "$delay"
done

echo "$name: $shown is not healthy after $retries tries" >&2
exit 1
