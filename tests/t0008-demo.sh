#!/bin/sh
# The README's first command ends with the demo: it must name its three functions with shares
# near 60/30/10 (each within 5 binomial standard deviations of its ~200 samples).
. "$(dirname "$0")/lib.sh"
test_expect_success 'the demo names its hot functions with their shares' '
	"$B/demo" 2 > out &&
	cat out &&
	awk -v want="compute_model 60 parse_input 30 write_output 10" "
		/samples at/ { n = \$3 }
		\$3 ~ /^(compute_model|parse_input|write_output)\$/ { got[\$3] = \$1 }
		END {
			split(want, w, \" \")
			for (i = 1; i <= 6; i += 2) {
				p = w[i + 1] / 100
				bound = 100 * (5 * sqrt(p * (1 - p) / n) + 3 / n)
				d = got[w[i]] - w[i + 1]
				if (d < 0) d = -d
				if (!(w[i] in got) || d > bound) { print w[i], got[w[i]], bound; exit 1 }
			}
		}" out
'
test_done
