#!/bin/sh
# Fails if an object compiled from src/sample/ (code that runs in signal context) references a
# symbol that is neither defined by another such object nor listed in tools/signal-safe.allow.
set -eu
allow=$(dirname "$0")/signal-safe.allow
defined=$(${NM:-nm} --defined-only "$@" | awk 'NF == 3 { print $3 }' | sort -u)
bad=0
for sym in $(${NM:-nm} -u "$@" | awk '$1 == "U" { print $2 }' | sort -u); do
	if printf '%s\n' "$defined" | grep -qx -- "$sym"; then
		continue
	fi
	if grep -v '^#' "$allow" | grep -qx -- "$sym"; then
		continue
	fi
	echo "profil: signal-context code references unsafe symbol: '$sym'" >&2
	bad=1
done
exit $bad
