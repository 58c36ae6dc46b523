#!/usr/bin/env bash
# jp as the client of the MCP conformance suite. `conformance client
# --command client.sh` starts a test server per scenario and runs this
# script with the server's URL as the last argument and the scenario in
# MCP_CONFORMANCE_SCENARIO (and, for some, MCP_CONFORMANCE_CONTEXT, a JSON
# object such as a pre-registered client's credentials). The script points
# a throwaway jp configuration at the URL and runs the jp command a user
# would: jp mcp check, or jp mcp call with the tool the scenario serves.
#
# $JP is the jp binary (default: jp on PATH).
set -euo pipefail

url="${!#}"
scenario="${MCP_CONFORMANCE_SCENARIO:?MCP_CONFORMANCE_SCENARIO is not set}"
jp="${JP:-jp}"
here="$(cd "$(dirname "$0")" && pwd)"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export HOME="$work/home" XDG_DATA_HOME="$work/data" XDG_CONFIG_HOME="$work/config"
mkdir -p "$HOME" "$XDG_CONFIG_HOME/jp"
cd "$HOME"

# The server's table, and a pre-registered OAuth client when the scenario
# hands one over.
{
  printf '[mcp.servers.conf]\nurl = "%s"\n' "$url"
  if [ -n "${MCP_CONFORMANCE_CONTEXT:-}" ]; then
    id="$(jq -r '.client_id // empty' <<<"$MCP_CONFORMANCE_CONTEXT")"
    secret="$(jq -r '.client_secret // empty' <<<"$MCP_CONFORMANCE_CONTEXT")"
    if [ -n "$id" ]; then
      printf '\n[mcp.servers.conf.oauth]\nclient_id = %s\n' "$(jq -Rn --arg v "$id" '$v')"
      [ -z "$secret" ] || printf 'client_secret = %s\n' "$(jq -Rn --arg v "$secret" '$v')"
    fi
  fi
} >"$XDG_CONFIG_HOME/jp/config.toml"

# The authorization server of the auth scenarios redirects at once: the
# "browser" follows that redirect to jp's loopback listener.
export BROWSER="$here/browser.sh"

case "$scenario" in
initialize)
  exec "$jp" mcp check conf ;;
tools_call)
  exec "$jp" mcp call conf add_numbers '{"a": 5, "b": 3}' ;;
elicitation-sep1034-client-defaults)
  exec "$jp" mcp call conf test_client_elicitation_defaults --headless "$here/accept-defaults.txt" ;;
sse-retry)
  exec "$jp" mcp call conf test_reconnection ;;
auth/*)
  exec "$jp" mcp call conf test-tool ;;
*)
  echo "client.sh: no jp command for scenario $scenario" >&2
  exit 2 ;;
esac
