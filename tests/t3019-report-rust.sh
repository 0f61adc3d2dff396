#!/bin/sh
# t3019-report-rust: Rust functions show as rustfilt shows them, from both manglings (profil(1):
# "C++ and Rust names are demangled"): legacy names without their hash, v0 names without crate
# disambiguators.  The expected names come from binutils' c++filt --no-verbose on the symbols nm
# lists, not from profil; --no-demangle shows those symbols as they are.
. "$(dirname "$0")/lib.sh"
test_needs rustc:rustc

P=$B/profil
test_run_prog demangle "$B/tests/report/demangle"

# Debian's rustc, which tools/deps.sh installs, rather than a rustup one earlier in PATH.
RUSTC=rustc
[ -x /usr/bin/rustc ] && RUSTC=/usr/bin/rustc
cat > burn.rs <<'EOR'
// Three kinds of function Rust mangles differently: a trait impl, a method of a generic type,
// a plain function.  None may be inlined into main, so each owns its samples.
trait Shape {
    fn area(&self, n: u64) -> u64;
}

struct Square(u64);

impl Shape for Square {
    #[inline(never)]
    fn area(&self, n: u64) -> u64 {
        let mut s = self.0;
        for i in 0..n {
            s = s.wrapping_mul(31).wrapping_add(i);
        }
        s
    }
}

struct Stack<T> {
    v: Vec<T>,
}

impl<T: Copy + Into<u64>> Stack<T> {
    #[inline(never)]
    fn sum(&self, n: u64) -> u64 {
        let mut s = 0u64;
        for i in 0..n / 4 {
            for x in &self.v {
                s = s.wrapping_add((*x).into() ^ i);
            }
        }
        s
    }
}

#[inline(never)]
fn spin(n: u64) -> u64 {
    let mut s = 1u64;
    for i in 0..n {
        s = s.rotate_left(3) ^ i;
    }
    s
}

fn main() {
    let n: u64 = std::env::args().nth(1).map(|s| s.parse().unwrap()).unwrap_or(1000);
    let sq = Square(3);
    let st = Stack { v: vec![1u32, 2, 3, 4] };
    println!("{} {} {}", sq.area(n), st.sum(n), spin(n));
}
EOR

# The symbols of the three functions, a tab, and their names as c++filt --no-verbose prints them.
want_symbols() {
	nm "$1" | awk '$2 ~ /^[tT]$/ { print $3 }' > "syms.$1" &&
	c++filt -i < "syms.$1" > "names.$1" &&
	paste "syms.$1" "names.$1" |
	    grep -E "$(printf '\t')(<r::Square as r::Shape>::area|<?r::Stack<[^>]*>>?::sum|r::spin)\$" \
	    > "want.$1" &&
	cat "want.$1" && test "$(wc -l < "want.$1")" -eq 3
}

# Every line of file has field field of want.NAME among the function names of report.
has_all() {
	cut -f "$3" "want.$1" | while IFS= read -r name; do
		cut -f 7 "$2" | grep -qxF "$name" || { echo "missing: $name"; exit 1; }
	done
}

# check_names NAME: the report of ./NAME, recorded, names the three functions as c++filt -i does,
# no row keeps a hash or a disambiguator, and --no-demangle shows the symbols nm lists.
check_names() {
	test_expect_success "$1: the three functions named as c++filt --no-verbose names them" "
		want_symbols $1 &&
		\"\$P\" record -o rec.$1 -- ./$1 400000000 &&
		\"\$P\" report --tsv rec.$1 > got.$1 &&
		cat got.$1 &&
		has_all $1 got.$1 2
	"
	test_expect_success "$1: no name keeps a hash or a crate disambiguator" "
		! cut -f 7 got.$1 | grep -E '::h[0-9a-f]{16}\$|\\[[0-9a-f]{16}\\]|^_[ZR]'
	"
	test_expect_success "$1: --no-demangle shows the mangled symbols, in exports too" "
		\"\$P\" report --tsv --no-demangle rec.$1 > raw.$1 &&
		cat raw.$1 &&
		has_all $1 raw.$1 1 &&
		\"\$P\" export --no-demangle --format=folded -o raw.$1.folded rec.$1 &&
		grep -qF \"\$(head -n 1 want.$1 | cut -f 1)\" raw.$1.folded
	"
}

if "$RUSTC" -O --crate-name r -o legacy burn.rs; then
	check_names legacy
else
	echo "not ok - $RUSTC builds the Rust program"
fi
# rustc 1.59 made -C symbol-mangling-version=v0 stable; an older one says it is unstable.
if "$RUSTC" -O --crate-name r -C symbol-mangling-version=v0 -o v0 burn.rs 2> v0.err; then
	test_expect_success 'v0: the symbols are v0 ones (_R)' "nm v0 | grep -q ' _RNv'"
	check_names v0
else
	cat v0.err
	echo "ok - skipped: $RUSTC has no v0 mangling ($($RUSTC --version))"
fi
test_done
