#!/bin/sh
# The window behind profil serve (src/fleet/window.c) on profiles with known counts: exactly
# what each image gained since the mark, per thread and stack; ended images add nothing and are
# pruned; new ones add all they have.
. "$(dirname "$0")/lib.sh"
test_run_prog window "$B/tests/report/window"
test_done
