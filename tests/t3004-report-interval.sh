#!/bin/sh
# t3004-report-interval: the 95% interval the flat view prints for each share (profil(1):
# "the range that holds the function's true share with 95% confidence, given how many samples
# were taken").
. "$(dirname "$0")/lib.sh"

test_run_prog interval "$B/tests/report/interval"
test_done
