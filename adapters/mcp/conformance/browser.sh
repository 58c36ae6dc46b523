#!/usr/bin/env bash
# The "browser" of the conformance auth scenarios: it opens the
# authorization URL and follows the server's redirect back to jp's
# loopback listener, as a user's browser would after they consent.
exec curl -fsSL --max-time 20 -o /dev/null "$1"
