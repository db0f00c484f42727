# Shared helpers for the throwaway server fixtures written in bash (Scripts/ad-fixture,
# Scripts/pg-fixture). Scripts/ldap-fixture uses the Python twin, lib/fixture_common.py,
# and the same lib/make-tls. Sourced, not run. The sourcing script sets FIXTURE_NAME (for
# messages) first.
#
#   die, log                       messages prefixed "FIXTURE_NAME: "
#   ensure_tools TOOL...           runs Scripts/install-deps when one is missing
#   shell_quote, json_string       quoting for fixture.env and miadmin.json
#   random_password, write_secret  secrets: letters and digits; files 0600 without a newline
#   make_tls DIR [options]         the throwaway CA and server certificate (lib/make-tls)
#   port_in_use PORT, pick_port [N]  ports on 127.0.0.1
#   running_pid PIDFILE EXE [ARG]  the pid in PIDFILE if that process runs EXE (with ARG)
#   wait_for SECONDS PID CMD...    until CMD succeeds, PID dies or time runs out
#   pid_alive PID, stop_pid PID     running (not a zombie)?; SIGTERM, wait 10 s, then SIGKILL
#   lock_fd FD FILE SECONDS        an exclusive flock held on FD
#   remove_generated DIR NAME...   clean-up of what an earlier run generated in DIR

FIXTURE_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# Servers and their tools (slapd, samba, pg_ctl's helpers) live in /usr/sbin, which a non-root
# PATH may lack.
export PATH="$PATH:/usr/sbin:/sbin"

die() {
    echo "${FIXTURE_NAME:-fixture}: $*" >&2
    exit 1
}

log() {
    echo "${FIXTURE_NAME:-fixture}: $*" >&2
}

# On a fresh machine the server packages may be missing: let install-deps fetch them.
ensure_tools() {
    local tool
    for tool in "$@"; do
        if ! command -v "$tool" >/dev/null 2>&1; then
            "$FIXTURE_LIB_DIR/../install-deps"
            return
        fi
    done
}

# Quote a value for sh (single quotes), so fixture.env is safe to source.
shell_quote() {
    local q="'\\''"
    printf "'%s'" "${1//\'/$q}"
}

# Quote a value as a JSON string.
json_string() {
    local s=$1
    s=${s//\\/\\\\}
    s=${s//\"/\\\"}
    s=${s//$'\n'/\\n}
    s=${s//$'\t'/\\t}
    printf '"%s"' "$s"
}

# A random password of LENGTH (default 24) letters and digits: nothing to quote in a shell, a
# URI or a config file.
random_password() {
    local length=${1:-24} pw=""
    while ((${#pw} < length)); do
        pw+=$(openssl rand -base64 48 | tr -dc 'A-Za-z0-9')
    done
    printf '%s\n' "${pw:0:length}"
}

# Write a secret without a trailing newline (ldap tools' -y uses the whole file), readable by its
# owner only.
write_secret() {
    local file=$1 value=$2
    (umask 077 && printf '%s' "$value" >"$file")
    chmod 600 "$file"
}

# make_tls DIR [--ca-name NAME] [--drop-ca-keys]: see lib/make-tls (ca.pem, server.pem and
# server.key for 127.0.0.1/localhost, wrong-ca.pem; keys 0600).
make_tls() {
    "$FIXTURE_LIB_DIR/make-tls" "$@"
}

# Is something listening on 127.0.0.1:PORT? A connect to a closed port on loopback is refused at
# once; bash's /dev/tcp needs no extra package (ss may be absent).
port_in_use() {
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# pick_port [COUNT]: a port P with P .. P+COUNT-1 free (COUNT defaults to 1), in 20000-32000:
# below Linux's ephemeral range (32768+), so that outgoing connections do not take it from us.
# Another process may still take it before our server binds: callers retry on "address in use".
pick_port() {
    local count=${1:-1} attempt port i free
    for attempt in $(seq 1 50); do
        port=$(shuf -i 20000-$((32000 - count + 1)) -n 1)
        free=true
        for ((i = 0; i < count; i++)); do
            if port_in_use "$((port + i))"; then free=false; break; fi
        done
        if $free; then
            printf '%s\n' "$port"
            return 0
        fi
    done
    die "no free port found in 20000-32000"
}

# running_pid PIDFILE EXE [ARG]: print the pid in PIDFILE if that process is alive, its
# executable's name is EXE, and (when given) ARG is one of its arguments; fail otherwise. A stale
# pid file then never makes us kill (or refuse to start because of) an unrelated process. The
# executable, not argv[0]: samba retitles itself ("samba: root process").
running_pid() {
    local pidfile=$1 exe=$2 arg=${3:-} pid a
    [[ -f $pidfile ]] || return 1
    pid=$(<"$pidfile") || return 1
    [[ $pid =~ ^[0-9]+$ ]] || return 1
    pid_alive "$pid" || return 1
    [[ $(readlink "/proc/$pid/exe" 2>/dev/null) == */"$exe" ]] || return 1
    if [[ -n $arg ]]; then
        local -a argv=()
        mapfile -d '' argv <"/proc/$pid/cmdline" 2>/dev/null || return 1
        for a in "${argv[@]}"; do
            [[ $a == "$arg" ]] && { printf '%s\n' "$pid"; return 0; }
        done
        return 1
    fi
    printf '%s\n' "$pid"
}

# pid_alive PID: is PID running? A zombie (exited, not yet reaped by its parent) is not.
pid_alive() {
    local stat
    { stat=$(<"/proc/$1/stat"); } 2>/dev/null || return 1
    stat=${stat##*) }
    [[ ${stat%% *} != Z ]]
}

# wait_for SECONDS PID CMD...: run CMD every 0.05 s until it succeeds (0), the process PID has
# exited (2), or SECONDS have passed (1). PID may be empty (nothing to watch).
wait_for() {
    local seconds=$1 pid=$2 deadline
    shift 2
    deadline=$((SECONDS + seconds))
    # SECONDS counts whole seconds: an extra check bounds the wait within one second of SECONDS.
    local rounds=$((seconds * 20)) i
    for ((i = 0; i < rounds && SECONDS <= deadline; i++)); do
        if "$@"; then return 0; fi
        if [[ -n $pid ]] && ! pid_alive "$pid"; then return 2; fi
        sleep 0.05
    done
    return 1
}

# stop_pid PID: SIGTERM, then wait until it has exited (servers finish running operations and
# close their databases: 10 s); SIGKILL after that. Fails if it is still there.
stop_pid() {
    local pid=$1 i
    kill -TERM "$pid" 2>/dev/null || return 0
    for i in $(seq 1 200); do
        pid_alive "$pid" || return 0
        sleep 0.05
    done
    log "pid $pid ignored SIGTERM for 10 s; killing it"
    kill -KILL "$pid" 2>/dev/null || true
    for i in $(seq 1 40); do
        pid_alive "$pid" || return 0
        sleep 0.05
    done
    die "could not stop pid $pid"
}

# lock_fd FD FILE SECONDS: hold an exclusive lock on FILE through file descriptor FD for the rest
# of the script (and in children that inherit FD), waiting at most SECONDS for it.
lock_fd() {
    local fd=$1 file=$2 seconds=$3
    eval "exec $fd>>\"\$file\""
    flock -w "$seconds" "$fd"
}

# remove_generated DIR NAME...: remove what an earlier (stopped) run generated in DIR. What is
# not named (the console's store.sqlite) stays.
remove_generated() {
    local dir=$1 name
    shift
    for name in "$@"; do
        rm -rf "${dir:?}/$name"
    done
}
