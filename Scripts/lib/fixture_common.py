"""Shared helpers for the throwaway server fixtures written in Python (Scripts/ldap-fixture).

The Python twin of lib/fixture-common.sh (which the bash fixtures source): the same functions
with the same meaning, small on both sides. The TLS files come from one recipe, lib/make-tls,
which both call. Standard library only: run by Debian's /usr/bin/python3.
"""

import errno
import fcntl
import os
import secrets
import shlex
import shutil
import socket
import string
import subprocess
import sys
import time

LIB_DIR = os.path.dirname(os.path.realpath(__file__))
SCRIPTS_DIR = os.path.dirname(LIB_DIR)
# Servers and their tools (slapd, slapadd) live in /usr/sbin, which a non-root PATH may lack.
os.environ["PATH"] = os.environ.get("PATH", "") + ":/usr/sbin:/sbin"

NAME = "fixture"  # the fixture's name for messages; set by the fixture


class FixtureError(Exception):
    """A failure to report as "NAME: message" with exit status 1."""


def die(message):
    raise FixtureError(message)


def log(message):
    print(f"{NAME}: {message}", file=sys.stderr, flush=True)


def run_main(main, argv):
    """Runs main(argv); a FixtureError becomes its message and exit status 1."""
    try:
        sys.exit(main(argv))
    except FixtureError as error:
        log(str(error))
        sys.exit(1)


def ensure_tools(*tools):
    """On a fresh machine the server packages may be missing: let install-deps fetch them."""
    if any(shutil.which(tool) is None for tool in tools):
        subprocess.run([os.path.join(SCRIPTS_DIR, "install-deps")], check=True)


def shell_quote(value):
    """Single-quotes a value for sh, so fixture.env is safe to source."""
    return "'" + value.replace("'", "'\\''") + "'"


def read_env(path):
    """The KEY='value' lines of a fixture.env written with shell_quote."""
    values = {}
    with open(path, encoding="utf-8") as env:
        for line in env:
            line = line.rstrip("\n")
            if not line or line.startswith("#") or "=" not in line:
                continue
            key, value = line.split("=", 1)
            words = shlex.split(value)
            values[key] = words[0] if words else ""
    return values


_PASSWORD_ALPHABET = string.ascii_letters + string.digits


def random_password(length=24):
    """Letters and digits only: nothing to quote in a shell, a URI or a config file."""
    return "".join(secrets.choice(_PASSWORD_ALPHABET) for _ in range(length))


def write_secret(path, value):
    """Writes a secret without a trailing newline (ldap tools' -y uses the whole file), 0600."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as secret:
        secret.write(value)
    os.chmod(path, 0o600)


def make_tls(directory, *options):
    """lib/make-tls DIR [--ca-name NAME] [--drop-ca-keys]: ca.pem, server.pem and server.key for
    127.0.0.1/localhost and the host's names, wrong-ca.pem; keys 0600."""
    result = subprocess.run([os.path.join(LIB_DIR, "make-tls"), directory, *options],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if result.returncode != 0:
        die(f"making the TLS files failed: {result.stderr.strip()}")


def port_in_use(port):
    """Is something listening on 127.0.0.1:PORT? A connect to a closed loopback port is refused
    at once."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.settimeout(1)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def pick_port(count=1):
    """A port P with P .. P+COUNT-1 free, in 20000-32000: below Linux's ephemeral range (32768+),
    so that outgoing connections do not take it. Another process may still take it before the
    server binds: callers retry on "address in use"."""
    for _ in range(50):
        port = secrets.randbelow(32000 - count + 1 - 20000 + 1) + 20000
        if not any(port_in_use(port + i) for i in range(count)):
            return port
    die("no free port found in 20000-32000")


def running_pid(pidfile, exe, arg=None):
    """The pid in PIDFILE if that process is alive, its executable's name is EXE and (when given)
    ARG is one of its arguments; None otherwise. A stale pid file then never makes us kill (or
    refuse to start because of) an unrelated process."""
    try:
        with open(pidfile, encoding="ascii") as f:
            text = f.read().strip()
        if not text.isdigit():
            return None
        pid = int(text)
        if os.path.basename(os.readlink(f"/proc/{pid}/exe")) != exe:
            return None
        if arg is not None:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if os.fsencode(arg) not in f.read().split(b"\0"):
                    return None
        return pid
    except (OSError, UnicodeDecodeError, ValueError):
        return None


def alive(pid):
    """Is PID running? A zombie (exited, not yet reaped by its parent) is not."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            # "pid (comm) state ...": comm may hold spaces and parentheses; state follows the last ")".
            return stat.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except (OSError, IndexError):
        return False


def wait_for(seconds, pid, ready):
    """Calls ready() every 0.05 s until it is true ("ok"), the process PID has exited ("exited")
    or SECONDS have passed ("timeout"). PID may be None (nothing to watch)."""
    deadline = time.monotonic() + seconds
    while True:
        if ready():
            return "ok"
        if pid is not None and not alive(pid):
            return "exited"
        if time.monotonic() >= deadline:
            return "timeout"
        time.sleep(0.05)


def stop_pid(pid):
    """SIGTERM, then wait until it has exited (servers finish running operations and close their
    databases: 10 s); SIGKILL after that. Fails if it is still there."""
    try:
        os.kill(pid, 15)
    except ProcessLookupError:
        return
    if wait_for(10, None, lambda: not alive(pid)) == "ok":
        return
    log(f"pid {pid} ignored SIGTERM for 10 s; killing it")
    try:
        os.kill(pid, 9)
    except ProcessLookupError:
        return
    if wait_for(2, None, lambda: not alive(pid)) != "ok":
        die(f"could not stop pid {pid}")


def lock(path, seconds):
    """An exclusive flock on PATH for the rest of the process, waiting at most SECONDS; the file
    stays open (close-on-exec: servers we start do not inherit it). False if it timed out."""
    handle = open(path, "a")
    deadline = time.monotonic() + seconds
    while True:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            _held_locks.append(handle)
            return True
        except OSError as error:
            if error.errno not in (errno.EWOULDBLOCK, errno.EAGAIN) or time.monotonic() >= deadline:
                handle.close()
                return False
            time.sleep(0.05)


_held_locks = []


def remove_generated(directory, names):
    """Removes what an earlier (stopped) run generated in DIRECTORY; what is not named (the
    console's store.sqlite) stays."""
    for name in names:
        path = os.path.join(directory, name)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        elif os.path.lexists(path):
            os.remove(path)
