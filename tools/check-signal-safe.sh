#!/bin/sh
# Fails if an object compiled from src/sample/ (code that runs in signal context) references a
# symbol that is neither defined by another such object nor matched by a pattern (shell glob) in
# tools/signal-safe.allow.  NM names the nm for a cross build; SIGNAL_SAFE_EXTRA names one more
# allow file, for objects with more to do in signal context (the recorder's flush).
set -eu
allow_files="$(dirname "$0")/signal-safe.allow ${SIGNAL_SAFE_EXTRA:-}"
nm=${NM:-nm}
defined=$($nm --defined-only "$@" | awk 'NF == 3 { print $3 }' | sort -u)

allowed() {
	for allow in $allow_files; do
		while read -r pat _; do
			case $pat in
			'' | '#'*) continue ;;
			esac
			# shellcheck disable=SC2254
			case $1 in
			$pat) return 0 ;;
			esac
		done < "$allow"
	done
	return 1
}

bad=0
for sym in $($nm -u "$@" | awk '$1 == "U" { print $2 }' | sort -u); do
	if printf '%s\n' "$defined" | grep -qx -- "$sym"; then
		continue
	fi
	if allowed "$sym"; then
		continue
	fi
	echo "profil: signal-context code references unsafe symbol: '$sym'" >&2
	bad=1
done
exit $bad
