"""Runs the tool with its standard output on a pseudo-terminal or a pipe, and says how it went
(tests/binary/text_output_posix_test.cpp). The tool's standard error goes to a file, printed
to the driver's own standard error at the end.

    stdout_driver.py terminal ENV COLUMNS TOOL ARGS...
        a terminal COLUMNS wide, TERM=xterm and NO_COLOR unset, then ENV's "NAME=VALUE" lines
        (one per line, ENV may be empty) applied; prints "exit=N", a newline and every byte
        the terminal got (its CR before each LF included)
    stdout_driver.py nonblocking pty|pipe TOOL ARGS...
        the output made non-blocking (O_NONBLOCK, on the file description the tool shares) and
        read only from a second later; prints "exit=N json=whole|cut bytes=B seconds=0.0"
    stdout_driver.py stalled TOOL ARGS...
        a non-blocking pipe never read, and SIGTERM a second after the start; prints
        "exit=N json=cut bytes=0 seconds=S", S from the signal to the tool's end (killed at 10)
"""
import fcntl
import json
import os
import signal
import struct
import subprocess
import sys
import tempfile
import termios
import time


def read_all(fd):
    """Every byte until the writers are gone: EOF on a pipe, EIO on a terminal's primary side."""
    out = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            return out
        if not chunk:
            return out
        out += chunk


def start(argv, stdout, env=None):
    err = tempfile.TemporaryFile()
    child = subprocess.Popen(argv, stdout=stdout, stderr=err, env=env)
    os.close(stdout)
    return child, err


def finish(child, err):
    code = child.wait()
    err.seek(0)
    sys.stderr.buffer.write(err.read())
    return code


def terminal(changes, columns, argv):
    env = dict(os.environ)
    env.pop("NO_COLOR", None)
    env["TERM"] = "xterm"
    for change in changes.split("\n") if changes else []:
        name, value = change.split("=", 1)
        env[name] = value
    primary, secondary = os.openpty()
    fcntl.ioctl(secondary, termios.TIOCSWINSZ, struct.pack("HHHH", 24, int(columns), 0, 0))
    child, err = start(argv, secondary, env)
    out = read_all(primary)
    sys.stdout.buffer.write(b"exit=%d\n" % finish(child, err) + out)


def nonblocking(mode, argv):
    reader, writer = os.openpty() if mode == "pty" else os.pipe()
    fcntl.fcntl(writer, fcntl.F_SETFL, fcntl.fcntl(writer, fcntl.F_GETFL) | os.O_NONBLOCK)
    child, err = start(argv, writer)
    time.sleep(1)
    out, seconds = b"", 0.0
    if mode == "stalled":
        child.send_signal(signal.SIGTERM)
        began = time.monotonic()
        try:
            child.wait(timeout=10)
        except subprocess.TimeoutExpired:
            child.kill()
        seconds = time.monotonic() - began
    else:
        out = read_all(reader)
    code = finish(child, err)
    try:
        json.loads(out.replace(b"\r\n", b"\n"))
        whole = "whole"
    except ValueError:
        whole = "cut"
    print("exit=%d json=%s bytes=%d seconds=%.1f" % (code, whole, len(out), seconds))


if __name__ == "__main__":
    if sys.argv[1] == "terminal":
        terminal(sys.argv[2], sys.argv[3], sys.argv[4:])
    elif sys.argv[1] == "nonblocking":
        nonblocking(sys.argv[2], sys.argv[3:])
    else:
        nonblocking("stalled", sys.argv[2:])
