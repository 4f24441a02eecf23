#!/usr/bin/env python3
"""Presses TAB in a real interactive bash, the way a person at a terminal does.

    complete_pty.py COMPLETION_SCRIPT DIR LINE [bash|zsh]

Starts `bash -i` (or `zsh -i` with compinit and bashcompinit, as the script's header says to
use it there) on a pseudo-terminal in DIR (no rc files, no inputrc), loads COMPLETION_SCRIPT, defines `hsperfguard` as a shell function that prints each argument it gets
as `ARG<...>`, types LINE, presses TAB, then Enter. Prints the terminal's transcript from the
moment LINE is typed: first what readline put on the line after TAB, then the arguments the
command received. A name that the completion puts on the line unquoted runs or splits there.
"""
import os
import pty
import select
import sys
import time


def read_until(fd, buffer, done, timeout):
    """Reads the terminal into buffer until done(buffer) or timeout; returns the buffer."""
    end = time.monotonic() + timeout
    while time.monotonic() < end and not done(buffer):
        ready, _, _ = select.select([fd], [], [], 0.05)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            buffer += chunk
    return buffer


def read_quiet(fd, buffer, quiet, timeout):
    """Reads until nothing has come for `quiet` seconds (readline finished redrawing)."""
    end = time.monotonic() + timeout
    last = time.monotonic()
    while time.monotonic() < end and time.monotonic() - last < quiet:
        ready, _, _ = select.select([fd], [], [], 0.05)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            buffer += chunk
            last = time.monotonic()
    return buffer


def main():
    script, directory, line = sys.argv[1], sys.argv[2], sys.argv[3]
    shell = sys.argv[4] if len(sys.argv) > 4 else "bash"
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "TERM": "dumb",
        "INPUTRC": "/dev/null",
        "HOME": directory,
        "PS1": "PROMPT$ ",
        "LC_ALL": "C",
    }
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(directory)
        if shell == "zsh":
            os.execve("/usr/bin/zsh", ["zsh", "-f", "-i"], env)
        os.execve("/bin/bash", ["bash", "--norc", "--noprofile", "-i"], env)
    try:
        out = read_until(fd, b"", lambda b: b"PROMPT$ " in b, 20)
        setup = (
            ("autoload -U compinit && compinit -u; autoload -U bashcompinit && bashcompinit; "
             if shell == "zsh" else "") +
            "source '%s'; hsperfguard() { printf 'ARG<%%s>\\n' \"$@\"; echo ARGS-END; }; "
            "echo SETUP-DONE\n" % script.replace("'", "'\\''")
        )
        os.write(fd, setup.encode())
        out = read_until(fd, out, lambda b: b.count(b"SETUP-DONE") >= 2, 20)
        out = read_until(fd, out, lambda b: b.endswith(b"PROMPT$ "), 5)
        mark = len(out)
        os.write(fd, line.encode())
        out = read_quiet(fd, out, 0.3, 10)
        os.write(fd, b"\t")
        out = read_quiet(fd, out, 0.8, 10)
        os.write(fd, b"\r")
        out = read_until(fd, out, lambda b: b"ARGS-END\r\n" in b[mark:] or b"ARGS-END\n" in b[mark:], 20)
        os.write(fd, b"exit\r")
        read_until(fd, b"", lambda b: False, 1)
    finally:
        try:
            os.kill(pid, 9)
        except ProcessLookupError:
            pass
        os.waitpid(pid, 0)
    sys.stdout.write(out[mark:].decode("utf-8", "backslashreplace").replace("\r", ""))


if __name__ == "__main__":
    main()
