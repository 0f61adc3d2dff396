/*
 * demangle.c - profil_demangle() on names taken from real binaries (Debian's rustc 1.63, g++ 12)
 * and from issue 10, against what c++filt --no-verbose and rustfilt print for them.
 */
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "report/demangle.h"

static void
expect(const char *mangled, const char *want)
{
	char *got = profil_demangle(mangled);

	if (want == NULL)
		tap_check(got == NULL, "%s stays as it is (got %s)", mangled, got ? got : "NULL");
	else
		tap_check(got != NULL && strcmp(got, want) == 0, "%s -> %s (got %s)", mangled, want,
		    got ? got : "NULL");
	free(got);
}

int
main(void)
{
	/* C++, with parameters, as perf and gprof -C show them; std::string abbreviated. */
	expect("_ZN11profil_test6Widget4spinEm", "profil_test::Widget::spin(unsigned long)");
	expect("_ZNSt6vectorIiSaIiEE9push_backERKi",
	    "std::vector<int, std::allocator<int> >::push_back(int const&)");
	expect("_Z1fSs", "f(std::string)");
	/* Rust legacy: C++'s _ZN form, its last component the hash, which rustfilt drops. */
	expect("_ZN5alloc5slice10merge_sort17h349b4a8f3606819bE", "alloc::slice::merge_sort");
	expect("_ZN1r14Stack$LT$T$GT$3sum17h5c980dd1b1f6fc1aE", "r::Stack<T>::sum");
	expect("_ZN38_$LT$r..Square$u20$as$u20$r..Shape$GT$4area17heb6f328a2a5eb226E",
	    "<r::Square as r::Shape>::area");
	/* The issue's own: a trait impl for &mut W, promoted by ThinLTO (.llvm.<digits>). */
	expect("_ZN50_$LT$$RF$mut$u20$W$u20$as$u20$core..fmt..Write$GT$9write_str"
	    "17h0a1b2c3d4e5f6a7bE.llvm.9287343928741927410", "<&mut W as core::fmt::Write>::write_str");
	/* Rust v0: no hash to drop, crate disambiguators not shown. */
	expect("_RNvCsi7GFBnvyxwE_1r4spin", "r::spin");
	expect("_RNvMs_Csi7GFBnvyxwE_1rINtB4_5StackmE3sumB4_", "<r::Stack<u32>>::sum");
	expect("_RNvXCsi7GFBnvyxwE_1rNtB2_6SquareNtB2_5Shape4area", "<r::Square as r::Shape>::area");
	expect("_RINvNtCsihNoVIYWwLU_5alloc7raw_vec11finish_growNtNtB4_5alloc6GlobalECsi7GFBnvyxwE_1r"
	    ".llvm.8510701182279254881", "alloc::raw_vec::finish_grow::<alloc::alloc::Global>");
	/* ThinLTO's suffix on C++ goes too (c++filt would add "[clone .llvm.123]"); others stay. */
	expect("_ZN11profil_test6Widget4spinEm.llvm.123", "profil_test::Widget::spin(unsigned long)");
	expect("_ZN11profil_test6Widget4spinEm.cold",
	    "profil_test::Widget::spin(unsigned long) [clone .cold]");
	/* C names, and what only looks mangled, are left to the caller. */
	expect("main", NULL);
	expect("_start", NULL);
	expect("_Z", NULL);
	expect("_R", NULL);
	expect("_ZN3foo.llvm.", NULL);
	expect("", NULL);
	return tap_failures != 0;
}
