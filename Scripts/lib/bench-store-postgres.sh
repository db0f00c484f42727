# Sourced by Scripts/bench-store for --engine postgres: the same moves and listing against a
# throwaway PostgreSQL 15 server (Scripts/pg-fixture), miadmin against psql running the same
# statements in the same transactions; plus `store copy` of the SQLite store into PostgreSQL
# (time, peak RSS) and four consoles moving at once.

# Starts the server under $WORK/pg and sets PG_* (fixture.env) and ADMIN_PASSWORD.
start_postgres() {
    log "starting a throwaway PostgreSQL server"
    chmod o+x "$WORK"   # the server runs as `postgres` when we are root
    "$SCRIPT_DIR/pg-fixture" start "$WORK/pg" >&2
    # shellcheck source=/dev/null
    source "$WORK/pg/fixture.env"
    ADMIN_PASSWORD=$(head -n 1 "$PG_ADMIN_PASSWORD_FILE")
}

# --fsync on: the server as a site runs it, with fsync, synchronous_commit and full_page_writes
# on (the fixture turns them off: a throwaway server for tests). All three take a reload.
make_durable() {
    pg_admin -c "ALTER SYSTEM SET fsync = on" -c "ALTER SYSTEM SET synchronous_commit = on" \
        -c "ALTER SYSTEM SET full_page_writes = on" -c "SELECT pg_reload_conf()" >/dev/null
    [[ $(pg_admin -A -t -c "SHOW fsync") == on ]] || die "the server did not take fsync = on"
    echo
    echo "server durable from here on: fsync, synchronous_commit and full_page_writes on"
}

# --standby on: a synchronous streaming standby; every commit from here on waits for it.
start_standby() {
    log "starting a synchronous hot standby"
    "$SCRIPT_DIR/pg-fixture" standby "$WORK/pg" >&2
    echo
    echo "a synchronous hot standby from here on: every commit waits until the standby has its WAL"
}

# PgBouncer in front ($POOLER pooling): from now on pg_url, so miadmin's configs and psql, go
# through it. The copies are dropped WITH (FORCE): the pooler keeps server connections to them.
start_pooler() {
    log "starting PgBouncer ($POOLER pooling)"
    "$SCRIPT_DIR/pg-fixture" pgbouncer "$WORK/pg" --mode "$POOLER" >&2
    # shellcheck source=/dev/null
    source "$WORK/pg/fixture.env"
    STORE_BASE_URL=$PG_BOUNCER_URL
    echo
    echo "through PgBouncer 1.18 ($POOLER pooling, TLS client and server side) from here on"
}

stop_postgres() {
    if [[ -n ${WORK:-} && -d $WORK/pg ]]; then "$SCRIPT_DIR/pg-fixture" stop "$WORK/pg" >/dev/null 2>&1 || true; fi
}

pg_admin() { PGOPTIONS='-c client_min_messages=warning' PGPASSWORD=$ADMIN_PASSWORD psql "$PG_ADMIN_URL" -X -q -v ON_ERROR_STOP=1 "$@"; }
pg_url() { local base=${STORE_BASE_URL:-$PG_URL}; echo "${base/\/mi\?//$1?}"; }
pg_store() { PGPASSWORD=$(head -n 1 "$PG_PASSWORD_FILE") psql "$(pg_url "$1")" -X -q -v ON_ERROR_STOP=1 "${@:2}"; }

# pg_config DB OUT: the console config with store.url on database DB.
pg_config() {
    python3 - "$MIADMIN_CONFIG" "$(pg_url "$1")" "$PG_PASSWORD_FILE" "$2" <<'PY'
import json, sys
src, url, password_file, out = sys.argv[1:]
with open(src) as f:
    config = json.load(f)
config["store"] = {"url": url, "passwordFile": password_file}
config["display"] = {"timeZone": "UTC"}
with open(out, "w") as f:
    json.dump(config, f, indent=2)
PY
}

# The SQLite store, copied into database `master` by miadmin itself: the `store copy` benchmark.
bench_store_copy() {
    pg_admin -c "CREATE DATABASE master OWNER miadmin"
    echo "store copy: $FORMS forms, SQLite -> PostgreSQL (miadmin store copy, one transaction, then verified)"
    local out
    out=$(MIADMIN_PASSWORD=$MKHAN_PASSWORD timed "miadmin store copy" "$WORK/copy.out" /dev/null -- \
        "$MIADMIN" --config "$WORK/master.json" --user mkhan --format csv \
        -c "store copy --to '$(pg_url master)' --password-file '$PG_PASSWORD_FILE' --yes")
    local w k c
    read -r w k c <<<"$out"
    echo "store copy: wall ${w} s, CPU ${c} s, peak RSS $(mib "$k") MiB"
    sed 's/^/  /' "$WORK/copy.out"
    pg_store master -c "VACUUM ANALYZE forms, media, foreman_comments, notices, audit, policy"
}

# Fresh databases copyA (miadmin) and copyB (psql), both from master.
copy_pg_store() {
    pg_admin -c "DROP DATABASE IF EXISTS copya WITH (FORCE)" -c "DROP DATABASE IF EXISTS copyb WITH (FORCE)" \
        -c "CREATE DATABASE copya TEMPLATE master OWNER miadmin" -c "CREATE DATABASE copyb TEMPLATE master OWNER miadmin"
}

# moves.sql (SQLite's spelling) as PostgreSQL runs it: the same statements and transactions.
make_pg_moves() {
    sed -e '/^\.bail/d' -e '/^PRAGMA/d' \
        -e 's/^BEGIN IMMEDIATE;/BEGIN ISOLATION LEVEL SERIALIZABLE;/' \
        -e "s/((julianday('now') - 2440587.5) \* 86400.0)/extract(epoch from clock_timestamp())/g" \
        "$WORK/moves.sql" >"$WORK/moves.pg.sql"
}

# CPU seconds (user + system) the server and the pooler have used so far: every `postgres`
# process (the postmaster's reaped backends included) and `pgbouncer`, as "postgres pgbouncer".
server_cpu() {
    python3 - <<'PY'
import os
tick = os.sysconf("SC_CLK_TCK")
used = {"postgres": 0, "pgbouncer": 0}
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
    except OSError:
        continue
    comm, fields = stat[stat.index("(") + 1:stat.rindex(")")], stat[stat.rindex(")") + 2:].split()
    if comm in used:  # fields[11:15]: utime, stime, cutime, cstime
        used[comm] += sum(int(v) for v in fields[11:15])
print(f"{used['postgres'] / tick:.2f} {used['pgbouncer'] / tick:.2f}")
PY
}

# server_cpu_during FILE CMD...: runs CMD; appends the server's and the pooler's CPU seconds
# used meanwhile to FILE ("postgres pgbouncer" per run).
server_cpu_during() {
    local file=$1 before
    shift
    before=$(server_cpu)
    "$@"
    server_cpu_since "$before" "$file"
}

# The server's and pooler's CPU per run, from FILE: medians.
print_server_cpu() {
    local what=$1 file=$2
    echo "$what: server CPU $(awk '{ print $1 }' "$file" | median) s, pooler CPU $(awk '{ print $2 }' "$file" | median) s (medians)"
}

run_moves_miadmin_pg() {
    MIADMIN_PASSWORD=$MKHAN_PASSWORD server_cpu_during "$WORK/server-cpu.miadmin" timed "miadmin -f moves.mi" /dev/null /dev/null -- \
        "$MIADMIN" --config "$WORK/copyA.json" --user mkhan -f "$WORK/moves.mi"
}

run_moves_psql() {
    PGPASSWORD=$(head -n 1 "$PG_PASSWORD_FILE") server_cpu_during "$WORK/server-cpu.psql" timed "psql -f moves.pg.sql" /dev/null /dev/null -- \
        psql "$(pg_url copyb)" -X -q -v ON_ERROR_STOP=1 -f "$WORK/moves.pg.sql"
}

pg_moved_state() {
    pg_store "$1" -A -t -F $'\t' <<SQL
CREATE TEMP TABLE moved (id bigint PRIMARY KEY);
\copy moved FROM '$WORK/moved-ids.txt'
SELECT 'form', id, owner, name, version FROM forms WHERE id IN (SELECT id FROM moved) ORDER BY id;
SELECT 'notice', form_id, uid, text, source, read_at IS NULL FROM notices ORDER BY form_id, id;
SELECT 'audit', form_id, actor, command, object, before::jsonb - 'expires', after::jsonb - 'expires',
       before::jsonb ? 'expires' AND after::jsonb ? 'expires', note IS NULL FROM audit
    WHERE command <> 'store.copy' ORDER BY form_id, id;
SQL
}

verify_pg_moves() {
    pg_moved_state copya >"$WORK/stateA.tsv"
    pg_moved_state copyb >"$WORK/stateB.tsv"
    check_moved_states "$1"
}

bench_pg_moves() {
    pg_config copya "$WORK/copyA.json"
    make_pg_moves
    echo
    echo "moves on PostgreSQL: $MOVES x 'move ID UID' (one transaction each) on a copy of a store of $FORMS forms; psql runs the same statements"
    rm -f "$WORK/server-cpu.miadmin" "$WORK/server-cpu.psql"
    pair_rounds copy_pg_store run_moves_miadmin_pg run_moves_psql verify_pg_moves
    print_server_cpu "during miadmin's moves" "$WORK/server-cpu.miadmin"
    print_server_cpu "during psql's moves" "$WORK/server-cpu.psql"
}

# The same moves split over four consoles started together, against one console's rate; then
# the reference, four psql sessions with the same statements against one psql. $ROUNDS rounds of
# both (a fresh copy each), medians.
bench_pg_concurrent() {
    echo
    echo "four consoles at once on PostgreSQL: moves.mi split round-robin into 4 scripts; four psql sessions" \
         "with moves.pg.sql split by transaction; $ROUNDS rounds"
    local i round
    for i in 0 1 2 3; do awk -v i="$i" 'NR % 4 == i' "$WORK/moves.mi" >"$WORK/moves.$i.mi"; done
    awk -v out="$WORK/moves.pg.sql.part." '/^BEGIN/ { block++ } { print > (out (block % 4)) }' "$WORK/moves.pg.sql"
    rm -f "$WORK/four.walls" "$WORK/psql-four.walls" "$WORK/server-cpu.four" "$WORK/server-cpu.psql-four"
    printf '%-6s %14s %16s %18s\n' round four_consoles_s four_psql_s psql_committed
    for ((round = 1; round <= ROUNDS; round++)); do
        four_consoles_round
        four_psql_round
        printf '%-6s %14s %16s %18s\n' "$round" "$(tail -n 1 "$WORK/four.walls")" \
            "$(tail -n 1 "$WORK/psql-four.walls" | cut -d' ' -f1)" "$(tail -n 1 "$WORK/psql-four.walls" | cut -d' ' -f2)"
    done
    print_server_cpu "during the four consoles" "$WORK/server-cpu.four"
    print_server_cpu "during the four psql sessions" "$WORK/server-cpu.psql-four"
    local wall psql_wall committed
    wall=$(median <"$WORK/four.walls")
    psql_wall=$(cut -d' ' -f1 "$WORK/psql-four.walls" | median)
    committed=$(cut -d' ' -f2 "$WORK/psql-four.walls" | median)
    echo "four consoles: $MOVES moves in ${wall} s (median) = $(awk -v m="$MOVES" -v w="$wall" 'BEGIN { printf "%.0f", m / w }') moves/s;" \
        "one console: $(awk -v m="$MOVES" -v w="$LAST_MIADMIN_MEDIAN" 'BEGIN { printf "%.0f", m / w }') moves/s;" \
        "ratio four/one: $(awk -v w="$wall" -v s="$LAST_MIADMIN_MEDIAN" 'BEGIN { printf "%.2f", s / w }')x"
    echo "four psql sessions: $committed of $MOVES moves committed in ${psql_wall} s (medians) =" \
        "$(awk -v m="$committed" -v w="$psql_wall" 'BEGIN { printf "%.0f", m / w }') moves/s;" \
        "one psql: $(awk -v m="$MOVES" -v w="$LAST_OTHER_MEDIAN" 'BEGIN { printf "%.0f", m / w }') moves/s;" \
        "ratio four/one: $(awk -v m="$MOVES" -v c="$committed" -v w="$psql_wall" -v s="$LAST_OTHER_MEDIAN" 'BEGIN { printf "%.2f", (c / w) / (m / s) }')x"
}

# server_cpu_since BEFORE FILE: appends the server's and pooler's CPU seconds since BEFORE.
server_cpu_since() {
    awk -v b="$1" -v a="$(server_cpu)" 'BEGIN { split(b, x); split(a, y); printf "%.2f %.2f\n", y[1] - x[1], y[2] - x[2] }' >>"$2"
}

# One round of the four consoles on a fresh copy: every move applied once, the wall time
# appended to four.walls.
four_consoles_round() {
    copy_pg_store
    local i start end cpu_before failed=0 moved
    cpu_before=$(server_cpu)
    start=$(date +%s.%N)
    for i in 0 1 2 3; do
        MIADMIN_PASSWORD=$MKHAN_PASSWORD "$MIADMIN" --config "$WORK/copyA.json" --user mkhan -f "$WORK/moves.$i.mi" \
            >/dev/null 2>"$WORK/concurrent.$i.err" &
    done
    for i in 0 1 2 3; do wait -n || failed=$((failed + 1)); done
    end=$(date +%s.%N)
    server_cpu_since "$cpu_before" "$WORK/server-cpu.four"
    ((failed == 0)) || { cat "$WORK"/concurrent.*.err >&2; die "$failed of the four consoles failed"; }
    moved=$(pg_store copya -A -t -c "SELECT count(*) FROM audit WHERE command = 'move'")
    ((moved == MOVES)) || die "four consoles: expected $MOVES move audit rows, found $moved"
    awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f\n", b - a }' >>"$WORK/four.walls"
}

# One round of the reference: four psql sessions started together on a fresh copy. The names
# were precomputed for one session in order and psql does not retry, so a session may lose a
# transaction to a name another took first or to a serialization failure: it goes on (no
# ON_ERROR_STOP) and only committed moves (audit rows) count. Appends "wall committed".
four_psql_round() {
    copy_pg_store
    local i start end cpu_before committed
    cpu_before=$(server_cpu)
    start=$(date +%s.%N)
    for i in 0 1 2 3; do
        PGPASSWORD=$(head -n 1 "$PG_PASSWORD_FILE") psql "$(pg_url copyb)" -X -q -f "$WORK/moves.pg.sql.part.$i" \
            >/dev/null 2>"$WORK/psql-concurrent.$i.err" &
    done
    wait
    end=$(date +%s.%N)
    server_cpu_since "$cpu_before" "$WORK/server-cpu.psql-four"
    committed=$(pg_store copyb -A -t -c "SELECT count(*) FROM audit WHERE command = 'move'")
    awk -v a="$start" -v b="$end" -v c="$committed" 'BEGIN { printf "%.2f %d\n", b - a, c }' >>"$WORK/psql-four.walls"
}

LISTING_SQL_PG="SELECT id, name, owner, state, template,
    to_char(to_timestamp(created_utc) AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') AS created,
    to_char(to_timestamp(modified_utc) AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') AS modified,
    (SELECT COUNT(*) FROM media WHERE media.form_id = forms.id) AS media,
    CASE WHEN state = 'incomplete' THEN to_char(to_timestamp(GREATEST(created_utc, COALESCE(expiry_reset_at, created_utc))
        + 7 * 86400) AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') END AS expires
    FROM forms WHERE trashed_at IS NULL ORDER BY owner, name, id"

run_listing_miadmin_pg() {
    MIADMIN_PASSWORD=$MKHAN_PASSWORD timed "miadmin -c forms" /dev/null /dev/null -- \
        "$MIADMIN" --config "$WORK/masterpg.json" --user mkhan --format csv -c forms
}

run_listing_psql() {
    PGPASSWORD=$(head -n 1 "$PG_PASSWORD_FILE") timed "psql --csv" /dev/null /dev/null -- \
        psql "$(pg_url master)" -X -q --csv -c "$LISTING_SQL_PG"
}

bench_pg_listing() {
    pg_config master "$WORK/masterpg.json"
    log "listing on PostgreSQL: one untimed run each to count and compare the outputs"
    local rc=0 mlines plines same
    MIADMIN_PASSWORD=$MKHAN_PASSWORD "$MIADMIN" --config "$WORK/masterpg.json" --user mkhan --format csv -c forms \
        >"$WORK/forms-miadmin.csv" 2>"$WORK/stderr.out" || rc=$?
    ((rc == 0)) || fail_with "miadmin -c forms --format csv" "$rc" "$WORK/stderr.out"
    PGPASSWORD=$(head -n 1 "$PG_PASSWORD_FILE") psql "$(pg_url master)" -X -q --csv -c "$LISTING_SQL_PG" \
        >"$WORK/forms-psql.csv" 2>"$WORK/stderr.out" || rc=$?
    ((rc == 0)) || fail_with "psql --csv" "$rc" "$WORK/stderr.out"
    mlines=$(wc -l <"$WORK/forms-miadmin.csv")
    plines=$(wc -l <"$WORK/forms-psql.csv")
    same=$(same_csv_values "$WORK/forms-miadmin.csv" "$WORK/forms-psql.csv" psql)
    rm -f "$WORK/forms-miadmin.csv" "$WORK/forms-psql.csv"
    echo
    echo "listing on PostgreSQL: miadmin -c forms --format csv vs psql --csv (same query), $FORMS forms, output to /dev/null"
    pair_rounds : run_listing_miadmin_pg run_listing_psql :
    echo "lines: miadmin $mlines, psql $plines (header + $FORMS forms = $((FORMS + 1))); $same"
    if ((mlines != plines)) || [[ $same != same* ]]; then
        echo "WARNING: the two listings differ; the comparison is not like for like"
        exit 1
    fi
}
