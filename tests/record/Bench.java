// Bench [ROUNDS] - JVM code that the JIT compiles, for t2108 and bench/jit.sh: work() does the
// most of each round, maps() goes through java.util.HashMap.  600 rounds unless told.
import java.util.HashMap;
public class Bench {
	static long work(int n) { long s = 0; for (int i = 0; i < n; i++) s = (s * 31 + i) % 1000003; return s; }
	static long maps(int n) { HashMap<Integer, Integer> m = new HashMap<>();
		for (int i = 0; i < n; i++) m.merge(i % 1000, 1, Integer::sum); return m.size(); }
	public static void main(String[] a) {
		int rounds = a.length > 0 ? Integer.parseInt(a[0]) : 600;
		long t = 0;
		for (int r = 0; r < rounds; r++) { t += work(300000); t += maps(100000); }
		System.out.println(t > 0 ? "ok" : "no");
	}
}
