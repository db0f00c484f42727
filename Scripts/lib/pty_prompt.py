"""A program's interactive prompt on a pseudo-terminal: spawned, waited for, left with Ctrl-D.

The benchmarks that time the prompt (bench-startup, bench-teams, bench-kerberos,
bench-ad-nested) and Scripts/startup-symbols, which profiles it, share this one loop. They
import it with Scripts/lib on PYTHONPATH.
"""
import collections
import os
import pty
import select
import signal
import time

# Seconds from the spawn until the prompt showed, the exit code after Ctrl-D, peak RSS in KiB,
# and everything the program wrote.
Session = collections.namedtuple("Session", "seconds exit_code peak_kib output")


class PromptError(Exception):
    """The prompt did not show: not in time (the program was killed), or the program exited
    first. The message ends with the last of its output."""


def run_to_prompt(program, argv, shown, seconds, env=None, leaving_seconds=10):
    """Spawns `program` with `argv` (and `env`, else this process's environment) on a
    pseudo-terminal. Once `shown(output so far)` holds, sends Ctrl-D and reads until the program
    closes the terminal, for at most `leaving_seconds` between reads.

    Returns a Session. Raises PromptError when the prompt has not shown `seconds` after the spawn, or when the
    program exits before it."""
    start = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:
        try:
            if env is None:
                os.execv(program, argv)
            else:
                os.execve(program, argv, env)
        finally:
            os._exit(127)
    try:
        seen, elapsed, deadline = b"", None, start + seconds
        while elapsed is None:
            ready, _, _ = select.select([fd], [], [], max(0, deadline - time.perf_counter()))
            if not ready:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                raise PromptError(f"no prompt within {seconds} s; output so far: {seen[-500:]!r}")
            try:
                chunk = os.read(fd, 4096)
            except OSError:  # EIO: the child closed the terminal (it exited)
                chunk = b""
            if not chunk:
                os.waitpid(pid, 0)
                raise PromptError(f"exited before the prompt; output: {seen[-500:].decode(errors='replace')}")
            seen += chunk
            if shown(seen):
                elapsed = time.perf_counter() - start
        os.write(fd, b"\x04")
        while True:  # drain until the child closes the terminal
            ready, _, _ = select.select([fd], [], [], leaving_seconds)
            if not ready:
                break
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
        _, status, usage = os.wait4(pid, 0)
        return Session(elapsed, os.waitstatus_to_exitcode(status), usage.ru_maxrss, seen)
    finally:
        os.close(fd)
