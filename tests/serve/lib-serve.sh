# tests/serve/lib-serve.sh - sourced by the t50xx profil serve scripts after lib-record.sh.

# serve_port ERRFILE: the port profil serve said it listens on (it says so once listening),
# waited for up to 10 s; nothing, with the file shown, if it never said.
serve_port() {
	for i in $(seq 100); do
		p=$(sed -n 's|^profil: serving http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$1" 2> /dev/null)
		[ -n "$p" ] && echo "$p" && return 0
		sleep 0.1
	done
	cat "$1" >&2
	return 1
}
