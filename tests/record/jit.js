// jit.js [ROUNDS] - node code that V8's optimizing JIT compiles, for t2108 and bench/jit.sh:
// fa does the most of each round.  A fixed amount of work (350 rounds unless told), so that a
// busy machine gives as many CPU samples as a quiet one.
function fa(n) { let s = 0; for (let i = 0; i < n; i++) s = (s + i * i) % 1000003; return s; }
function fb(n) { let s = 0; for (let i = 0; i < n; i++) s = (s ^ (i * 7)) % 999983; return s; }
let t = 0;
const rounds = Number(process.argv[2] || 350);
for (let r = 0; r < rounds; r++) { t += fa(200000); t += fb(100000); }
console.log(t > 0 ? "ok" : "no");
