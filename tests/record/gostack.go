// gostack - a Go program whose stacks t2103 and bench/stacks.sh check: static, its unwind
// rules only in a compressed .debug_frame, and sha256's block, assembly that uses rbp as data,
// so that frame pointers cannot walk out of it.  gostack N hashes 300000*N times and sorts
// 2000*N slices (N 1: about 0.2 s of CPU).
package main

import (
	"crypto/sha256"
	"fmt"
	"os"
	"sort"
	"strconv"
)

//go:noinline
func hashLoop(n int) byte {
	var s [32]byte
	for i := 0; i < n; i++ {
		s = sha256.Sum256(s[:])
	}
	return s[0]
}

//go:noinline
func sortLoop(n int) int {
	t := 0
	for i := 0; i < n; i++ {
		a := make([]int, 1000)
		for j := range a {
			a[j] = (j * 7919) % 1000
		}
		sort.Ints(a)
		t += a[500]
	}
	return t
}

func main() {
	n, err := strconv.Atoi(os.Args[1])
	if err != nil || n < 1 {
		fmt.Fprintln(os.Stderr, "usage: gostack N")
		os.Exit(2)
	}
	fmt.Println(hashLoop(300000*n), sortLoop(2000*n))
}
