# Shared helpers for the Scripts/bench-* benchmarks. Sourced, not run.
#
# The sourcing script sets BENCH_NAME (for messages), SCRIPT_DIR and REPO_ROOT, and WORK
# (its temporary directory) before calling the functions that use them.

log() {
    echo "$BENCH_NAME: $*" >&2
}

die() {
    echo "$BENCH_NAME: $*" >&2
    exit 1
}

# Median of the numbers on stdin (mean of the middle two for an even count).
median() {
    sort -n | awk '{ v[NR] = $1 } END {
        if (NR == 0) exit 1
        if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# KiB -> MiB with one decimal.
mib() {
    awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'
}

# "A / B" as "1.23x", or n/a when B is zero.
ratio() {
    awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "n/a" }'
}

# Fail with the command's own error output, so a broken miadmin is obvious.
fail_with() {
    local what=$1 rc=$2 errfile=$3 how="exit $rc"
    if ((rc > 128)); then how+=", killed by signal $((rc - 128))"; fi
    echo "$BENCH_NAME: $what failed ($how); its stderr (last 20 lines):" >&2
    tail -n 20 "$errfile" | sed 's/^/    /' >&2
    exit 1
}

# timed WHAT OUT IN -- CMD...: runs CMD once under /usr/bin/time with stdin from IN and
# stdout to OUT (both may be /dev/null), stderr to $WORK/stderr.out; prints "SECONDS KIB CPU"
# (wall time, peak RSS, user + system seconds). Fails with CMD's stderr if it exits non-zero.
timed() {
    local what=$1 out=$2 in=$3 tfile="$WORK/time.out" efile="$WORK/stderr.out" rc=0
    shift 4
    /usr/bin/time -f '%e %M %U %S' -o "$tfile" "$@" <"$in" >"$out" 2>"$efile" || rc=$?
    ((rc == 0)) || fail_with "$what" "$rc" "$efile"
    # On failure time(1) writes a "Command exited ..." line first: the last line is ours.
    tail -n 1 "$tfile" | awk '{ printf "%s %s %.2f\n", $1, $2, $3 + $4 }'
}

# Sets MIADMIN: $MIADMIN_BIN if given, else a static-runtime release build in the repository root.
build_miadmin() {
    if [[ -n ${MIADMIN_BIN:-} ]]; then
        [[ -x $MIADMIN_BIN ]] || die "MIADMIN_BIN=$MIADMIN_BIN is not an executable"
        MIADMIN=$MIADMIN_BIN
        log "using MIADMIN_BIN=$MIADMIN (no build)"
    else
        command -v swift >/dev/null 2>&1 || die "swift is not on PATH: cannot build miadmin"
        # The build we recommend for deployment (README): the Swift runtime linked statically,
        # which saves loading about 14 shared libraries at every start.
        log "building miadmin (release, static Swift runtime) in $REPO_ROOT"
        if ! MIADMIN=$("$REPO_ROOT/Scripts/build-release"); then
            die "release build of miadmin failed (see above)"
        fi
        [[ -x $MIADMIN ]] || die "the build succeeded but $MIADMIN does not exist"
    fi
    evict_from_page_cache "$MIADMIN"
}

# Drops FILE's pages from the page cache (posix_fadvise DONTNEED, through dd; no root needed),
# so the binary under test is mapped as a program read from disk, like the system tools it is
# compared with. A file just written (linked or copied) sits in the page cache in large folios,
# which a process maps whole: the same binary then shows 2-3 MiB more peak RSS (measured for
# `-c whoami`: 27.4 MiB just copied, 24.0-25.0 MiB once dropped and read back).
evict_from_page_cache() {
    if ! dd if="$1" iflag=nocache count=0 status=none 2>/dev/null; then
        log "could not drop $1 from the page cache; its peak RSS may read 2-3 MiB high"
    fi
}

# start_fixture N [OPTION...]: a fixture with N bulk users (and ldap-fixture's OPTIONs) in
# $WORK/fixture; sources its fixture.env and sets MKHAN_PASSWORD.
start_fixture() {
    log "starting a fixture with $1 bulk users${2:+ (${*:2})}"
    "$SCRIPT_DIR/ldap-fixture" start "$WORK/fixture" --users "$1" "${@:2}" >&2
    # shellcheck source=/dev/null
    source "$WORK/fixture/fixture.env"
    MKHAN_PASSWORD=$(awk -F'\t' '$1 == "mkhan" { print $2 }' "$USERS_FILE")
    [[ -n $MKHAN_PASSWORD ]] || die "no password for mkhan in $USERS_FILE"
}

# Stop slapd and remove the temp dir however we leave (error, Ctrl-C, success).
# MIADMIN_BENCH_KEEP=1 keeps the temp dir (the store, scripts and configs, e.g. to profile a
# side on its own); slapd is stopped all the same.
cleanup() {
    if [[ -n ${WORK:-} ]]; then
        if [[ -d $WORK/fixture ]]; then "$SCRIPT_DIR/ldap-fixture" stop "$WORK/fixture" || true; fi
        if [[ ${MIADMIN_BENCH_KEEP:-} == 1 ]]; then
            echo "$BENCH_NAME: kept $WORK (MIADMIN_BENCH_KEEP=1)" >&2
        else
            rm -rf "$WORK"
        fi
    fi
}

# config_for STORE OUT: the fixture's console config with store.path set to STORE.
config_for() {
    python3 - "$MIADMIN_CONFIG" "$1" "$2" <<'PY'
import json, sys
src, store, out = sys.argv[1:]
with open(src) as f:
    config = json.load(f)
config["store"]["path"] = store
config["display"] = {"timeZone": "UTC"}  # times as the listing benchmarks' SQL writes them
with open(out, "w") as f:
    json.dump(config, f, indent=2)
PY
}

# One line on the machine and how busy it is (other builds share it): cores and load averages.
machine_line() {
    echo "machine: $(nproc) cores; load average (1, 5, 15 min) $1: $(cut -d' ' -f1-3 /proc/loadavg)"
}

# parse_options SPEC... -- ARGS...: the benchmarks' command lines. Each SPEC is
# --option=VARIABLE:KIND, KIND one of count (0, 1, 2, ...), positive (1, 2, ...) or word (any
# value); each option given sets its VARIABLE (defaults are the script's own assignments). An
# unknown argument calls the script's usage; a bad or missing value dies naming the option.
parse_options() {
    local -A variable=() kind=()
    local spec option
    while (($#)) && [[ $1 != -- ]]; do
        spec=$1
        option=${spec%%=*}
        spec=${spec#*=}
        variable[$option]=${spec%%:*}
        kind[$option]=${spec#*:}
        shift
    done
    (($#)) && shift
    while (($#)); do
        option=$1
        [[ -n ${variable[$option]:-} ]] || usage
        (($# >= 2)) || die "$option needs a value"
        case ${kind[$option]} in
        count) [[ $2 =~ ^[0-9]+$ ]] || die "$option must be a number, got '$2'" ;;
        positive) [[ $2 =~ ^[1-9][0-9]*$ ]] || die "$option must be a positive number, got '$2'" ;;
        word) ;;
        *) die "parse_options: bad kind '${kind[$option]}' for $option" ;;
        esac
        printf -v "${variable[$option]}" '%s' "$2"
        shift 2
    done
}

# pair_rounds PREPARE RUN_MIADMIN RUN_SQLITE CHECK: $ROUNDS rounds of PREPARE, then each runner
# (functions printing "SECONDS KIB CPU"), then CHECK ROUND (":" for none); prints one line per
# round, the medians and the ratios miadmin/sqlite3 (wall time, CPU time, peak RSS).
pair_rounds() {
    local prepare=$1 run_m=$2 run_s=$3 check=$4 round out w k c
    local -a m_w m_k m_c s_w s_k s_c
    local other=${OTHER_TOOL:-sqlite3}
    printf '%-6s %10s %11s %12s %10s %11s %12s\n' round miadmin_s miadmin_cpu miadmin_MiB "${other}_s" "${other}_cpu" "${other}_MiB"
    for ((round = 1; round <= ROUNDS; round++)); do
        "$prepare"
        out=$("$run_m")
        read -r w k c <<<"$out"
        m_w+=("$w") m_k+=("$k") m_c+=("$c")
        out=$("$run_s")
        read -r w k c <<<"$out"
        s_w+=("$w") s_k+=("$k") s_c+=("$c")
        printf '%-6s %10s %11s %12s %10s %11s %12s\n' "$round" "${m_w[-1]}" "${m_c[-1]}" "$(mib "${m_k[-1]}")" \
            "${s_w[-1]}" "${s_c[-1]}" "$(mib "${s_k[-1]}")"
        "$check" "$round"
    done
    local mw mk mc sw sk sc
    mw=$(printf '%s\n' "${m_w[@]}" | median) mk=$(printf '%s\n' "${m_k[@]}" | median)
    mc=$(printf '%s\n' "${m_c[@]}" | median) sw=$(printf '%s\n' "${s_w[@]}" | median)
    sk=$(printf '%s\n' "${s_k[@]}" | median) sc=$(printf '%s\n' "${s_c[@]}" | median)
    printf '%-6s %10.2f %11.2f %12.1f %10.2f %11.2f %12.1f\n' median "$mw" "$mc" "$(mib "$mk")" "$sw" "$sc" "$(mib "$sk")"
    LAST_MIADMIN_MEDIAN=$mw LAST_OTHER_MEDIAN=$sw
    echo "ratio miadmin/$other: wall time $(ratio "$mw" "$sw"), CPU time $(ratio "$mc" "$sc"), peak RSS $(ratio "$mk" "$sk")"
}
