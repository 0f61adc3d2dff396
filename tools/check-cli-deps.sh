#!/bin/sh
# tools/check-cli-deps.sh PKG... - run by make before anything of the profil command compiles:
# each pkg-config package named, and binutils' libiberty (no pkg-config file: the static library
# the compiler would link), must be there.  Without this check the first word a new user saw was
# the compiler's "gelf.h: No such file or directory", which names neither the package nor the
# command that installs it.  PKG_CONFIG and CC as make passes them.
set -u
missing=
for p in "$@"; do
	${PKG_CONFIG:-pkg-config} --exists "$p" 2> /dev/null || missing="$missing $p"
done
# gcc and clang print the path of a library they find, and the bare name of one they do not.
case $(${CC:-cc} -print-file-name=libiberty.a 2> /dev/null) in
/*) ;;
*) missing="$missing libiberty" ;;
esac
[ -z "$missing" ] && exit 0
# tools/deps.sh installs the build machine's libraries: a cross compiler needs its target's,
# found through a pkg-config that looks among them.
target=$(${CC:-cc} -dumpmachine 2> /dev/null)
case $target in
"" | "$(uname -m)"-*)
	printf "profil: missing libraries the profil command is built with (tools/deps.sh installs \
them, as make demo and make check do; run it as root): '%s'\n" "${missing# }" >&2 ;;
*)
	printf "profil: missing libraries the profil command is built with, for %s (CC is a \
cross compiler: install them for that target, and set PKG_CONFIG=%s-pkg-config or \
PKG_CONFIG_LIBDIR=/usr/lib/%s/pkgconfig): '%s'\n" "$target" "$target" "$target" \
	    "${missing# }" >&2 ;;
esac
exit 1
