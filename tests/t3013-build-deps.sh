#!/bin/sh
# t3013-build-deps: a unit test that #includes a source file is rebuilt when that file changes
# (issue 11: after editing the reader, `make check` ran the old tests/unit/format).  make -W
# pretends a file is new without touching the tree.
. "$(dirname "$0")/lib.sh"

for src in src/format/reader.c src/format/writer.c src/format/crc32.c src/format/format.h \
    src/profile/profile.c; do
	test_expect_success "a newer $src rebuilds tests/unit/format" "
		make -s -n -C \"\$ROOT\" B=\"\$B\" -W $src \"\$B/tests/unit/format\" > plan &&
		cat plan &&
		grep -q 'tests/unit/format.c' plan
	"
done
test_done
