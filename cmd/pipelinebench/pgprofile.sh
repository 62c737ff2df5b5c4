#!/bin/sh
# pgprofile.sh profiles the CPU of PostgreSQL's backends during a run of
# the benchmark, split by the server each backend serves: ours
# (pipelined) or the baseline. pg_stat_statements tells a statement's
# time, waits included; this tells where a backend's CPU goes.
#
# Usage, as root, from cmd/pipelinebench:
#
#	./pgprofile.sh OUT SECONDS pipelinebench-args...
#
# for example ./pgprofile.sh /tmp/sched 20 -db "$DSN" -server ./pipelined
# -cases spread -scenarios schedule -rounds 2 -duration 6s. It writes
# OUT.data (perf record of the whole machine, with call graphs), OUT.bench
# (the benchmark's output), OUT.ours.txt and OUT.base.txt: for each
# side's backends, every symbol with the share of the side's samples that
# have it in their call graph, largest first; and OUT.samples, each
# side's number of samples.
#
# Needs perf (Debian's linux-perf), psql, ss and awk. perf records SECONDS
# seconds, from the moment ours' server has started. psql reaches the
# server at PGPROFILE_DSN (default postgres://postgres@127.0.0.1:5432/postgres).
# The baseline's backends are those of every pipelinebench process: its
# own connection, which loads the data, counts with them.
set -eu
out=$1
secs=$2
shift 2
go run . "$@" >"$out.bench" 2>&1 &
bench=$!
while ! pgrep -f "pipelined.* serve" >/dev/null; do
	kill -0 "$bench" 2>/dev/null || { echo "the benchmark ended before its server started; see $out.bench" >&2; exit 1; }
	sleep 0.2
done
perf record -o "$out.data" -a -g -F 499 -- sleep "$secs" >/dev/null 2>&1 &
rec=$!
: >"$out.map"
# Which backend serves which server: its client port, and the process
# that owns that port. Connections come and go, so look every 2 s.
while kill -0 "$rec" 2>/dev/null; do
	psql "${PGPROFILE_DSN:-postgres://postgres@127.0.0.1:5432/postgres}" -Atc \
		"SELECT pid, client_port FROM pg_stat_activity WHERE client_port IS NOT NULL" | sed 's/^/pg|/' >>"$out.map"
	ss -tnpH state established '( dport = :5432 )' | sed 's/^/ss|/' >>"$out.map"
	sleep 2
done
wait "$bench" || true
# Each side's samples: a symbol's share is the share of the side's
# samples with that symbol anywhere in their call graph.
awk -F'|' '
	/^ss\|/ { split($2, f, " "); n = split(f[3], a, ":"); port = a[n]; p = $2
		sub(/.*\(\("/, "", p); sub(/".*/, "", p); owner[port] = p }
	/^pg\|/ { backend[$2] = $3 }
	END { for (b in backend) { o = owner[backend[b]]
		if (o ~ /^pipelined/) print b, "ours"; else if (o ~ /^pipelinebench/) print b, "base" } }' \
	"$out.map" | sort -u >"$out.sides"
perf script -i "$out.data" -F pid,ip,sym 2>/dev/null | awk -v sides="$out.sides" -v out="$out" '
	BEGIN { while ((getline l < sides) > 0) { split(l, f, " "); side[f[1]] = f[2] } }
	function flush() { if (s != "") { total[s]++; for (k in seen) n[s, k]++ } delete seen; s = "" }
	/^[^\t]/ { flush(); s = side[$1 + 0]; next }
	/^\t/ && s != "" { sub(/^\t[ \t]*[0-9a-f]+ /, ""); seen[$0] = 1; next }
	/^$/ { flush() }
	END { flush()
		for (k in n) { split(k, f, SUBSEP)
			printf "%6.2f%% %s\n", 100 * n[k] / total[f[1]], f[2] | ("sort -rn > " out "." f[1] ".txt") }
		for (t in total) print t, total[t], "samples" > (out ".samples") }'
echo "$out.ours.txt $out.base.txt"
