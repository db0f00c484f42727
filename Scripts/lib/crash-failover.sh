# Sourced by Scripts/crash-test --failover: TRIALS times, a fresh primary with a
# synchronous streaming standby (Scripts/pg-fixture start + standby), the console's store.url
# naming both (target_session_attrs=read-write). A scripted run of moves, an import or an expiry
# runs with the built binary; at a random moment the primary is stopped
# with `-m immediate` and the standby promoted (pg-fixture failover). Checked on the new primary:
#   - the run exited 0 (it rode the failover out within store.reconnectSeconds);
#   - every form present before is still there, none doubled, each with one import audit row;
#   - a move script: each of its lines applied exactly once (one audit row with the line's note,
#     its notices), every owner the one its last move row names;
#   - an import: every form of the tree there once; an expiry: each trashed form with exactly one
#     expire audit row and its notice.
# (`store copy --append` is not among the operations yet: it needs ids disjoint from the seed's.)
# Uses from crash-test: $root $bin $work $trials make_tree fail() and the LDAP fixture's config.

failover_trials() {
    local config_ldap=$1
    local site=$work/site failures_before=$failures
    local -A ops=([move]=0 [import]=0 [expire]=0)
    local exited0=0 reconnected=0 during=0 before=0 t op status delay admin_url

    for ((t = 1; t <= trials; t++)); do
        "$root/Scripts/pg-fixture" stop "$site" >/dev/null 2>&1 || true
        rm -rf "$site"
        "$root/Scripts/pg-fixture" start "$site" >/dev/null 2>&1
        "$root/Scripts/pg-fixture" standby "$site" >/dev/null 2>&1
        # shellcheck source=/dev/null
        source "$site/fixture.env"
        local config=$work/failover.json
        make_config "$config_ldap" "$config" "$PG_FAILOVER_URL" "$PG_PASSWORD_FILE"
        rm -rf "$work/seed"
        make_tree "$work/seed" "s$t" 200
        local started span_ms
        started=$(date +%s%N)
        "$bin" --config "$config" --user mkhan --yes -c "import '$work/seed'" >/dev/null
        # Failover moments spread over 1.5 times what this import (start-up, login, 200 forms)
        # took, so they land in every phase of the run (start-up included) whatever the
        # machine's speed; the operations below are of the same size.
        span_ms=$(( ($(date +%s%N) - started) / 1000000 * 3 / 2 ))
        ((span_ms >= 300)) || span_ms=300
        admin_url=$(sed "s|:$PG_PORT/postgres?|:$PG_STANDBY_PORT/mi?|" <<<"$PG_ADMIN_URL")
        primary_sql() { PGPASSWORD=$(<"$PG_ADMIN_PASSWORD_FILE") psql -XAtq "${PG_ADMIN_URL/\/postgres\?//mi?}" -c "$1"; }
        sql() { PGPASSWORD=$(<"$PG_ADMIN_PASSWORD_FILE") psql -XAtq "$admin_url" -c "$1"; }
        primary_sql "SELECT id FROM forms" | LC_ALL=C sort >"$work/before"

        case $((RANDOM % 3)) in
        0)  op=move
            primary_sql "SELECT id FROM forms WHERE state = 'incomplete' AND owner = 'jdoe' ORDER BY random() LIMIT 150" |
                awk -v t="$t" '{ print "move " $1 " asmith --note crash-" t "-" NR }' >"$work/script"
            args=(-f "$work/script") ;;
        1)  op=import
            rm -rf "$work/tree"
            make_tree "$work/tree" "t$t" 150
            args=(--yes -c "import '$work/tree'") ;;
        2)  op=expire
            args=(--yes -c "expire --days $((RANDOM % 250 + 30))") ;;
        esac
        ops[$op]=$((ops[$op] + 1))
        "$bin" --config "$config" --user mkhan "${args[@]}" >/dev/null 2>"$work/stderr" &
        local pid=$!
        delay=$(( (RANDOM * 32768 + RANDOM) % span_ms ))
        sleep "$((delay / 1000)).$(printf '%03d' $((delay % 1000)))"
        if kill -0 "$pid" 2>/dev/null; then during=$((during + 1)); else before=$((before + 1)); fi
        "$root/Scripts/pg-fixture" failover "$site" >/dev/null
        status=0
        wait "$pid" || status=$?
        if ((status == 0)); then exited0=$((exited0 + 1)); else fail "$t" "$op" "exit $status: $(head -c 300 "$work/stderr")"; fi
        grep -q "^Reconnected to the PostgreSQL store" "$work/stderr" && reconnected=$((reconnected + 1))

        sql "SELECT id FROM forms" | LC_ALL=C sort >"$work/after"
        lost=$(comm -23 "$work/before" "$work/after" | wc -l)
        ((lost == 0)) || fail "$t" "$op" "$lost form(s) lost"
        doubled=$(sql "SELECT COUNT(*) - COUNT(DISTINCT name) FROM forms")
        ((doubled == 0)) || fail "$t" "$op" "$doubled form(s) doubled"
        unaudited=$(sql "SELECT COUNT(*) FROM forms f WHERE (SELECT COUNT(*) FROM audit a WHERE a.form_id = f.id
            AND a.command IN ('import.insert', 'copy')) > 1 OR NOT EXISTS (SELECT 1 FROM audit a WHERE a.form_id = f.id)")
        ((unaudited == 0)) || fail "$t" "$op" "$unaudited form(s) without exactly one import audit row"
        moves=$(sql "SELECT (SELECT COUNT(*) FROM audit WHERE command = 'move') || ' ' ||
                            (SELECT COUNT(*) FROM notices WHERE source = 'move')")
        [[ ${moves% *} == "${moves#* }" ]] || fail "$t" "$op" "move audit rows and move notices differ: $moves"
        untraced=$(sql "SELECT COUNT(*) FROM forms f WHERE f.owner IS DISTINCT FROM COALESCE(
            (SELECT a.after::jsonb ->> 'owner' FROM audit a WHERE a.form_id = f.id AND a.command = 'move'
             ORDER BY a.id DESC LIMIT 1), f.owner)")
        ((untraced == 0)) || fail "$t" "$op" "$untraced form(s) whose owner is not the one their last move row names"
        twice=$(sql "SELECT COUNT(*) FROM (SELECT form_id FROM audit WHERE command IN ('move', 'expire')
            GROUP BY form_id, command HAVING COUNT(*) > 1) d")
        ((twice == 0)) || fail "$t" "$op" "$twice form(s) moved or expired twice"
        trashed=$(sql "SELECT COUNT(*) FROM forms f WHERE f.trashed_at IS NOT NULL AND (
            NOT EXISTS (SELECT 1 FROM audit a WHERE a.form_id = f.id AND a.command = 'expire') OR
            NOT EXISTS (SELECT 1 FROM notices n WHERE n.form_id = f.id AND n.source = 'expire'))")
        ((trashed == 0)) || fail "$t" "$op" "$trashed trashed form(s) without their expire audit row or notice"
        if ((status == 0)); then
            case $op in
            move)
                lines=$(wc -l <"$work/script")
                applied=$(sql "SELECT COUNT(DISTINCT note) || ' ' || COUNT(*) FROM audit WHERE command = 'move' AND note LIKE 'crash-$t-%'")
                [[ $applied == "$lines $lines" ]] || fail "$t" "$op" "$lines lines, applied (distinct, rows): $applied" ;;
            import)
                got=$(sql "SELECT COUNT(*) FROM forms WHERE name LIKE 't$t-%'")
                ((got == 150)) || fail "$t" "$op" "$got of 150 imported forms" ;;
            esac
        fi
    done
    "$root/Scripts/pg-fixture" stop "$site" >/dev/null 2>&1 || true
    echo "crash-test --failover: $trials trials (seed $seed): ${ops[move]} move scripts, ${ops[import]} imports," \
         "${ops[expire]} expiries;" \
         "$during failed over while the run was on ($reconnected of them after it had connected: it said it reconnected)," \
         "$before after it had finished; $exited0 exited 0"
    echo "crash-test --failover: $((failures - failures_before)) failed check(s)"
}

# make_config LDAP_CONFIG OUT URL PASSWORD_FILE: the fixture's config with the PostgreSQL store.
make_config() {
    /usr/bin/python3 - "$@" <<'EOF'
import json, sys
source, out, url, password_file = sys.argv[1:5]
config = json.load(open(source))
config["store"] = {"url": url, "passwordFile": password_file, "reconnectSeconds": 30}
json.dump(config, open(out, "w"), indent=2)
EOF
}
