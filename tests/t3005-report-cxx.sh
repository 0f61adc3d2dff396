#!/bin/sh
# t3005-report-cxx: C++ functions show demangled, as perf and `gprof -C` show them (profil(1):
# "C++ names are demangled"); the expected name comes from binutils' c++filt, not from profil.
. "$(dirname "$0")/lib.sh"
test_needs g++:g++

P=$B/profil
cat > widget.cc <<'EOC'
#include <cstdlib>

namespace profil_test {
struct Widget {
	unsigned long spin(unsigned long n);
};

__attribute__((noinline)) unsigned long
Widget::spin(unsigned long n)
{
	volatile unsigned long x = 0;

	for (unsigned long i = 0; i < n; i++)
		x += i * i;
	return x;
}
}

int
main(int argc, char **argv)
{
	profil_test::Widget w;

	return (int)(w.spin(argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 1) & 1);
}
EOC
g++ -O2 -g -o widget widget.cc || echo "not ok - g++ builds the C++ program"

test_expect_success 'the C++ method is the heaviest row, demangled as c++filt demangles it' '
	mangled=$(nm widget | awk "/Widget4spin/ { print \$3 }") &&
	want=$(echo "$mangled" | c++filt) &&
	echo "$mangled is $want" && test "$want" != "$mangled" &&
	"$P" record -o rec -- ./widget 200000000 &&
	"$P" report --tsv rec > out.tsv &&
	test "$(sed -n 2p out.tsv | cut -f 7,8)" = "$want	widget"
'
test_done
