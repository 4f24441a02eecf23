#!/usr/bin/env python3
"""Regenerates the seed corpora in fuzz/corpus/ (python3 standard library only).

    python3 fuzz/make_seeds.py

corpus/pid_name/  file names at the edges of HotSpot's filename_to_pid and of the audit's
                  stricter classification.
corpus/perfdata/  the real JDK 17 regions of tests/data/, one of them re-encoded big-endian,
                  and small hand-made regions: valid ones, and broken ones that each break one
                  rule of the format (POLICY.md section 5).
corpus/procfs/    a selector byte (the parser: 0 locks, 1 maps, 2 status, 3 stat, 4 cgroup and
                  mountinfo, 5 passwd, 6 lock-file holder, 7 net/unix) and the text of a /proc file, of
                  /etc/passwd or of the reaper's lock file, as Linux writes them and bent.
corpus/acl_xattr/ system.posix_acl_access values: what setfacl leaves, and broken ones.

The outputs are committed. Rerunning rewrites them byte for byte and never deletes a file,
so a reproducer added by hand stays (better: add it to this script).
"""

import pathlib
import struct

FUZZ_DIR = pathlib.Path(__file__).resolve().parent
REPO_DIR = FUZZ_DIR.parent
TEST_DATA = REPO_DIR / "tests" / "data"

MAGIC = b"\xca\xfe\xc0\xc0"
PROLOGUE_SIZE = 32
HEADER_SIZE = 20
LITTLE, BIG = "<", ">"

# data_units and data_variability codes.
NONE, BYTES, TICKS, EVENTS, STRING, HERTZ = 1, 2, 3, 4, 5, 6
CONSTANT, MONOTONIC, VARIABLE = 1, 2, 3
SUPPORTED = 1


def align(value, alignment):
    return (value + alignment - 1) // alignment * alignment


# ---- PerfData -------------------------------------------------------------------------------


def long_entry(name, value, order=LITTLE, units=TICKS, variability=CONSTANT, flags=SUPPORTED,
               **override):
    """A scalar 'J' counter laid out as HotSpot does; `override` breaks one header field."""
    name = name.encode() if isinstance(name, str) else name
    fields = dict(name_offset=HEADER_SIZE, vector_length=0, data_type=b"J", flags=flags,
                  units=units, variability=variability,
                  data_offset=align(HEADER_SIZE + len(name) + 1, 8))
    fields.update(override)
    data = struct.pack(order + "q", value)
    return _entry(name, data, order, fields)


def string_entry(name, value, order=LITTLE, variability=CONSTANT, flags=SUPPORTED,
                 capacity=None, **override):
    """A 'B' byte vector holding a NUL-terminated string (capacity: the vector length)."""
    name = name.encode() if isinstance(name, str) else name
    value = value.encode() if isinstance(value, str) else value
    capacity = len(value) + 1 if capacity is None else capacity
    fields = dict(name_offset=HEADER_SIZE, vector_length=capacity, data_type=b"B", flags=flags,
                  units=STRING, variability=variability,
                  data_offset=HEADER_SIZE + len(name) + 1)
    fields.update(override)
    data = value[:capacity].ljust(capacity, b"\0")
    return _entry(name, data, order, fields)


def _entry(name, data, order, f):
    length = f.pop("entry_length", None)
    name_bytes = f.pop("name_bytes", name + b"\0")
    body_end = max(HEADER_SIZE, f["name_offset"] + len(name_bytes), f["data_offset"] + len(data))
    if length is None:
        length = align(body_end, 8)
    # A broken entry_length (negative, short) still gets the bytes a reader that trusted it
    # would run into.
    body = bytearray(max(length, body_end))
    struct.pack_into(order + "iii", body, 0, length, f["name_offset"], f["vector_length"])
    body[12:16] = f["data_type"] + bytes([f["flags"], f["units"], f["variability"]])
    struct.pack_into(order + "i", body, 16, f["data_offset"])
    body[f["name_offset"]:f["name_offset"] + len(name_bytes)] = name_bytes
    body[f["data_offset"]:f["data_offset"] + len(data)] = data
    return bytes(body)


def region(entries, order=LITTLE, size=None, used=None, entry_offset=PROLOGUE_SIZE,
           num_entries=None, magic=MAGIC, byte_order=None, version=(2, 0), accessible=1,
           overflow=0, mod_time_stamp=123456789, tail=b""):
    """A prologue plus the given entry bytes; `size` pads with zeros (default: exactly used)."""
    body = b"".join(entries) + tail
    if used is None:
        used = PROLOGUE_SIZE + len(body)
    if num_entries is None:
        num_entries = len(entries)
    if byte_order is None:
        byte_order = 0 if order == BIG else 1
    prologue = magic + bytes([byte_order, version[0], version[1], accessible])
    prologue += struct.pack(order + "iiqii", used, overflow, mod_time_stamp, entry_offset,
                            num_entries)
    data = prologue + body
    if size is not None:
        data = data[:size].ljust(size, b"\0")
    return data


def to_big_endian(data):
    """Re-encodes a valid little-endian region: every multi-byte field swapped, byte 4 = 0."""
    out = bytearray(data)
    out[4] = 0
    used, overflow, stamp, entry_offset, num = struct.unpack_from("<iiqii", data, 8)
    struct.pack_into(">iiqii", out, 8, used, overflow, stamp, entry_offset, num)
    pos = entry_offset
    while pos + 4 <= used:
        length, name_offset, vector_length = struct.unpack_from("<iii", data, pos)
        if length == 0:
            break
        (data_offset,) = struct.unpack_from("<i", data, pos + 16)
        struct.pack_into(">iii", out, pos, length, name_offset, vector_length)
        struct.pack_into(">i", out, pos + 16, data_offset)
        if vector_length == 0:
            (value,) = struct.unpack_from("<q", data, pos + data_offset)
            struct.pack_into(">q", out, pos + data_offset, value)
        pos += length
    return bytes(out)


def perfdata_seeds():
    seeds = {}
    for name in ("jdk17-default", "jdk17-serial"):
        seeds[name + ".hsperf"] = (TEST_DATA / (name + ".hsperf")).read_bytes()
    seeds["jdk17-default-big-endian.hsperf"] = to_big_endian(seeds["jdk17-default.hsperf"])

    begin = long_entry("sun.rt.createVmBeginTime", 1700000000000, units=TICKS)
    command = string_entry("sun.rt.javaCommand", "org.example.Main --port 8080")
    frequency = long_entry("sun.os.hrt.frequency", 1000000000, units=HERTZ)
    tiny = region([begin])

    # Valid regions.
    seeds["tiny-one-long.bin"] = tiny
    seeds["tiny-one-string.bin"] = region([command])
    seeds["tiny-big-endian.bin"] = region(
        [long_entry("sun.rt.createVmBeginTime", 1700000000000, order=BIG),
         string_entry("java.property.java.vm.version", "17.0.9+9-Debian-1deb12u1", order=BIG)],
        order=BIG)
    seeds["prologue-only.bin"] = region([])
    seeds["padded.bin"] = region([begin, command, frequency], size=512)
    seeds["zero-length-terminator.bin"] = region([begin], tail=bytes(16))
    seeds["not-yet-accessible.bin"] = region([begin], accessible=0)
    seeds["num-entries-disagrees.bin"] = region([begin, frequency], num_entries=7)
    seeds["overflow-nonzero.bin"] = region([begin], overflow=4096)
    seeds["unsupported-and-supported.bin"] = region(
        [long_entry("sun.gc.collector.0.invocations", 3, units=EVENTS, flags=0),
         long_entry("java.cls.loadedClasses", 512, units=EVENTS, variability=MONOTONIC),
         string_entry("sun.rt.vmFlags", "-XX:+UseSerialGC", variability=VARIABLE, flags=0)])
    seeds["duplicate-names.bin"] = region(
        [long_entry("sun.rt.safepoints", 1), long_entry("sun.rt.safepoints", 2)])
    seeds["pseudo-counter-name.bin"] = region([long_entry("sun.perfdata.used", -1)])
    seeds["non-utf8-name-and-string.bin"] = region(
        [string_entry(b"sun.rt.\xff\xfe\\x41\xc0\xaf", b"\xed\xa0\x80 \xf4\x90\x80\x80 \\")])
    seeds["string-fills-vector.bin"] = region(
        [string_entry("sun.rt.javaCommand", "no-terminator", capacity=len("no-terminator"))])
    seeds["string-with-spare-capacity.bin"] = region(
        [string_entry("sun.rt.javaCommand", "short", capacity=256)])
    seeds["long-data-unaligned.bin"] = region(
        [long_entry("ab", 7, data_offset=23, entry_length=32)])
    # Valid, but wider once laid out as HotSpot does (data 8-byte aligned): a rebuild of it
    # does not fit in the same number of bytes.
    seeds["entries-4-aligned.bin"] = region(
        [long_entry("abcd", 1, data_offset=25, entry_length=36), long_entry("x", 2)])

    # The prologue.
    seeds["empty.bin"] = b""
    seeds["truncated-prologue.bin"] = tiny[:31]
    seeds["bad-magic.bin"] = region([begin], magic=b"\xc0\xc0\xfe\xca")
    seeds["unknown-byte-order.bin"] = region([begin], byte_order=2)
    seeds["version-1-0.bin"] = region([begin], version=(1, 0))
    seeds["used-beyond-size.bin"] = region([begin], used=len(tiny) + 8)
    seeds["used-below-prologue.bin"] = region([begin], used=16)
    seeds["entry-offset-misaligned.bin"] = region([begin], entry_offset=34)
    seeds["entry-offset-beyond-used.bin"] = region([begin], entry_offset=len(tiny) + 4)
    seeds["negative-overflow.bin"] = region([begin], overflow=-1)
    seeds["negative-num-entries.bin"] = region([begin], num_entries=-1)

    # The entry walk.
    seeds["misaligned-entry.bin"] = region(  # entry_length 30: the next entry starts at 62
        [long_entry("a", 1, data_offset=22, entry_length=30), bytes(2), frequency])
    seeds["entry-header-truncated.bin"] = region([], tail=b"\x40\x00", used=34)
    seeds["entry-length-negative.bin"] = region([long_entry("a", 1, entry_length=-8)])
    seeds["entry-length-past-used.bin"] = region(
        [long_entry("a", 1, entry_length=4096)[:32]], used=64)
    seeds["entry-shorter-than-header.bin"] = region([long_entry("a", 1, entry_length=12)])
    seeds["name-offset-outside-entry.bin"] = region(
        [long_entry("a", 1, name_offset=64, entry_length=32)])
    seeds["data-offset-before-name.bin"] = region([long_entry("a", 1, data_offset=20)])
    seeds["data-offset-past-entry.bin"] = region(
        [long_entry("a", 1, data_offset=40, entry_length=32)])
    seeds["name-without-nul.bin"] = region(
        [long_entry("abcd", 1, name_bytes=b"abcdabcd", data_offset=28, entry_length=40)])
    seeds["empty-name.bin"] = region([long_entry("", 1, name_bytes=b"\0")])
    seeds["monotonic-string.bin"] = region(
        [string_entry("sun.rt.javaCommand", "Main", variability=MONOTONIC)])
    seeds["vector-of-longs.bin"] = region([long_entry("a", 1, vector_length=1)])
    seeds["scalar-byte.bin"] = region([long_entry("a", 1, data_type=b"B")])
    seeds["vector-units-not-string.bin"] = region([string_entry("a", "x", units=BYTES)])
    seeds["unknown-units.bin"] = region([long_entry("a", 1, units=7)])
    seeds["unknown-variability.bin"] = region([long_entry("a", 1, variability=0)])
    seeds["negative-vector-length.bin"] = region([string_entry("a", "x", vector_length=-1)])
    seeds["vector-past-entry.bin"] = region([string_entry("a", "x", vector_length=64)])
    seeds["long-does-not-fit.bin"] = region(
        [long_entry("a", 1, data_offset=28, entry_length=32)])
    seeds["error-after-valid-entries.bin"] = region(
        [begin, command, long_entry("a", 1, units=0)])
    return seeds


# ---- pid names ------------------------------------------------------------------------------


def pid_name_seeds():
    names = {
        "one": b"1",
        "typical": b"12345",
        "default-max-pid": b"4194303",
        "default-pid-max": b"4194304",
        "old-max-pid": b"32767",
        "int32-max": b"2147483647",
        "int32-max-plus-one": b"2147483648",
        "uint32-max-plus-one": b"4294967296",
        "wraps-to-one": b"4294967297",
        "long-max": b"9223372036854775807",
        "long-max-plus-one": b"9223372036854775808",
        "twenty-nines": b"99999999999999999999",
        "zero": b"0",
        "zeros": b"000000",
        "leading-zeros": b"007",
        "many-leading-zeros": b"0" * 40 + b"1",
        "plus-sign": b"+12",
        "minus-sign": b"-1",
        "leading-space": b" 12",
        "trailing-space": b"12 ",
        "trailing-newline": b"12\n",
        "suffix": b"12x",
        "prefix": b"x12",
        "decimal-point": b"1.0",
        "hex": b"0x1f",
        "empty": b"",
        "arabic-indic-digits": "\u0661\u0662".encode(),
        "fullwidth-digits": "\uff11\uff12".encode(),
        "superscript-digit": "\u00b9".encode(),
        "embedded-nul": b"12\x00",
        "nul-then-junk": b"12\x00x",
        "nul-first": b"\x00" + b"12",
        "invalid-utf8": b"1\xff",
        "lock-file": b"12345.lock",
        "dot": b".",
    }
    return {"seed-" + key: value for key, value in names.items()}


def procfs_seeds():
    texts = {
        "locks": (0, b"1: FLOCK  ADVISORY  WRITE 2436 fe:00:10960898 0 EOF\n"
                     b"1: -> FLOCK  ADVISORY  WRITE 2437 fe:00:10960898 0 EOF\n"
                     b"2: OFDLCK ADVISORY  READ  -1 00:2a:77 0 EOF\n"
                     b"3: POSIX  ADVISORY  WRITE 0 00:2a:78 0 EOF\n"),
        "maps": (1, b"7f3c00000000-7f3c00008000 rw-s 00000000 00:2a 77 /tmp/hsperfdata_alice/4242\n"
                    b"7f3c10000000-7f3c11000000 r-xp 00000000 fe:00 1234 /usr/lib/jvm/lib/server/libjvm.so\n"
                    b"7f3c20000000-7f3c20001000 rw-p 00000000 00:00 0 \n"
                    b"7f3c30000000-7f3c30008000 rw-s 00000000 00:2a 78 /tmp/hsperfdata_a b/12 (deleted)\n"),
        "status": (2, b"Name:\tjava\nTgid:\t4242\nPid:\t4242\nUid:\t1000\t1000\t1000\t1000\n"
                      b"NSpid:\t4242\t1\n"),
        "stat": (3, b"4242 (ja) va (x)) S 1 4242 4242 0 -1 4194560 100 0 0 0 5 2 0 0 20 0 19 0 "
                    b"123456 0 0\nbtime 1700000000\n"),
        "cgroup": (4, b"12:pids:/\n1:name=systemd:/system.slice/x.service\n0::/system.slice/java.service\n"),
        "mountinfo": (4, b"\x1a 1 0:2a / /tmp rw,nosuid - tmpfs tmpfs rw,size=1024k\n"
                         b"27 1 fe:00 / / ro shared:1 - ext4 /dev/vda1 rw\n"),
        "passwd": (5, b"root:x:0:0:root:/root:/bin/bash\n+nis\nalice:x:1000:1000::/home/alice:/bin/sh\n"
                      b"bad:x:4294967295:1::/:\n# comment\n  bob:x:1001:1001:::\r\n"),
        "lock-holder": (6, b"4242\nhsperfguard reap lock\n"),
        "lock-holder-bare-pid": (6, b"4242\n"),
        "lock-holder-zero": (6, b"0042\nhsperfguard reap lock\n"),
        "lock-holder-big": (6, b"2147483648\nhsperfguard reap lock\n"),
        "lock-holder-marker-only": (6, b"hsperfguard reap lock\n"),
        "net-unix": (7, b"Num       RefCount Protocol Flags    Type St Inode Path\n"
                        b"000000005ced1f68: 00000002 00000000 00010000 0001 01 4788658 /tmp/.java_pid7338.tmp\n"
                        b"0000000011111111: 00000003 00000000 00000000 0001 03 4788659 /tmp/.java_pid7338.tmp\n"
                        b"0000000033333333: 00000002 00000000 00010000 0001 01 4788661 @/tmp/.java_pid7340\n"
                        b"0000000088888888: 00000002 00000000 00010000 0001 01 100 /tmp/a\nb/.java_pid5\n"
                        b"0000000055555555: 00000002 00000000 00010000 0001 01 4788663\n"),
    }
    return {"seed-" + key: bytes([selector]) + text for key, (selector, text) in texts.items()}


def acl_xattr_seeds():
    def value(*entries, version=2):
        return struct.pack("<I", version) + b"".join(struct.pack("<HHI", *e) for e in entries)

    minimal = [(0x01, 6, 0xFFFFFFFF), (0x04, 4, 0xFFFFFFFF), (0x20, 4, 0xFFFFFFFF)]
    extended = [(0x01, 6, 0xFFFFFFFF), (0x02, 4, 4242), (0x04, 4, 0xFFFFFFFF), (0x08, 6, 4444),
                (0x10, 6, 0xFFFFFFFF), (0x20, 0, 0xFFFFFFFF)]
    return {
        "seed-minimal": value(*minimal),
        "seed-extended": value(*extended),
        "seed-bad-version": value(*minimal, version=3),
        "seed-bad-tag": value((0x40, 6, 0)),
        "seed-bad-perms": value((0x01, 8, 0)),
        "seed-truncated": value(*minimal)[:-1],
        "seed-header-only": value(),
        "seed-empty": b"",
    }


def write(directory, seeds):
    directory.mkdir(parents=True, exist_ok=True)
    for name, data in sorted(seeds.items()):
        (directory / name).write_bytes(data)


def main():
    write(FUZZ_DIR / "corpus" / "pid_name", pid_name_seeds())
    write(FUZZ_DIR / "corpus" / "perfdata", perfdata_seeds())
    write(FUZZ_DIR / "corpus" / "procfs", procfs_seeds())
    write(FUZZ_DIR / "corpus" / "acl_xattr", acl_xattr_seeds())


if __name__ == "__main__":
    main()
