#!/usr/bin/env python3
"""Minimal MongoDB wire-protocol checker (OP_MSG + a tiny BSON codec, stdlib only).

Used by scripts/services.sh to decide that FerretDB (or any MongoDB-compatible
server) is ready: a TCP connect is not enough, a real command must round-trip.

    mongo_ping.py [--timeout S] [--roundtrip] [--quiet] ADDRESS

ADDRESS is HOST:PORT or a mongodb://HOST:PORT/ URI.
Without --roundtrip it sends {ping: 1, $db: "admin"} and checks ok == 1.
With --roundtrip it also inserts a document into a scratch database, finds it
again by _id, checks the fields, and drops the scratch database.
Exit status: 0 on success, 1 on failure (reason on stderr).
"""

import argparse
import os
import socket
import struct
import sys
import time

OP_MSG = 2013


# --- BSON (just the types a health check needs) ---------------------------

def _cstring(s):
    b = s.encode("utf-8")
    if b"\x00" in b:
        raise ValueError("key contains NUL")
    return b + b"\x00"


def _encode_element(key, value):
    k = _cstring(key)
    if isinstance(value, bool):
        return b"\x08" + k + (b"\x01" if value else b"\x00")
    if isinstance(value, int):
        if -(2 ** 31) <= value < 2 ** 31:
            return b"\x10" + k + struct.pack("<i", value)
        return b"\x12" + k + struct.pack("<q", value)
    if isinstance(value, float):
        return b"\x01" + k + struct.pack("<d", value)
    if isinstance(value, str):
        b = value.encode("utf-8") + b"\x00"
        return b"\x02" + k + struct.pack("<i", len(b)) + b
    if value is None:
        return b"\x0a" + k
    if isinstance(value, dict):
        return b"\x03" + k + encode(value)
    if isinstance(value, (list, tuple)):
        return b"\x04" + k + encode({str(i): v for i, v in enumerate(value)})
    if isinstance(value, bytes):
        return b"\x05" + k + struct.pack("<i", len(value)) + b"\x00" + value
    raise TypeError("cannot BSON-encode %r" % type(value))


def encode(doc):
    body = b"".join(_encode_element(k, v) for k, v in doc.items())
    return struct.pack("<i", len(body) + 5) + body + b"\x00"


def _read_cstring(buf, pos):
    end = buf.index(b"\x00", pos)
    return buf[pos:end].decode("utf-8"), end + 1


def decode(buf, pos=0):
    """Decode the document at buf[pos:]; return (dict, position after it)."""
    (size,) = struct.unpack_from("<i", buf, pos)
    end = pos + size
    pos += 4
    out = {}
    while pos < end - 1:
        t = buf[pos]
        pos += 1
        key, pos = _read_cstring(buf, pos)
        if t == 0x01:
            (v,) = struct.unpack_from("<d", buf, pos)
            pos += 8
        elif t in (0x02, 0x0D, 0x0E):
            (n,) = struct.unpack_from("<i", buf, pos)
            v = buf[pos + 4:pos + 4 + n - 1].decode("utf-8", "replace")
            pos += 4 + n
        elif t in (0x03, 0x04):
            v, pos = decode(buf, pos)
            if t == 0x04:
                v = [v[k] for k in sorted(v, key=int)]
        elif t == 0x05:
            (n,) = struct.unpack_from("<i", buf, pos)
            v = bytes(buf[pos + 5:pos + 5 + n])
            pos += 5 + n
        elif t == 0x07:
            v = bytes(buf[pos:pos + 12]).hex()
            pos += 12
        elif t == 0x08:
            v = buf[pos] != 0
            pos += 1
        elif t in (0x09, 0x12):
            (v,) = struct.unpack_from("<q", buf, pos)
            pos += 8
        elif t in (0x0A, 0x06, 0x7F, 0xFF):
            v = None
        elif t == 0x0B:
            pattern, pos = _read_cstring(buf, pos)
            flags, pos = _read_cstring(buf, pos)
            v = (pattern, flags)
        elif t == 0x10:
            (v,) = struct.unpack_from("<i", buf, pos)
            pos += 4
        elif t == 0x11:
            (v,) = struct.unpack_from("<Q", buf, pos)
            pos += 8
        elif t == 0x13:
            v = bytes(buf[pos:pos + 16])
            pos += 16
        else:
            raise ValueError("unsupported BSON type 0x%02x for key %r" % (t, key))
        out[key] = v
    return out, end


# --- OP_MSG ----------------------------------------------------------------

def _recv_exact(sock, n):
    chunks = []
    while n:
        chunk = sock.recv(n)
        if not chunk:
            raise ConnectionError("server closed the connection")
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


class Conn:
    def __init__(self, host, port, timeout):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.sock.settimeout(timeout)
        self.request_id = 0

    def command(self, doc):
        self.request_id += 1
        payload = struct.pack("<I", 0) + b"\x00" + encode(doc)
        header = struct.pack("<iiii", 16 + len(payload), self.request_id, 0, OP_MSG)
        self.sock.sendall(header + payload)
        length, _rid, response_to, opcode = struct.unpack("<iiii", _recv_exact(self.sock, 16))
        body = _recv_exact(self.sock, length - 16)
        if opcode != OP_MSG:
            raise ValueError("unexpected reply opcode %d" % opcode)
        if response_to != self.request_id:
            raise ValueError("reply to request %d, expected %d" % (response_to, self.request_id))
        (flags,) = struct.unpack_from("<I", body, 0)
        pos = 4
        limit = len(body) - (4 if flags & 1 else 0)  # checksumPresent
        reply = None
        while pos < limit:
            kind = body[pos]
            pos += 1
            if kind == 0:
                reply, pos = decode(body, pos)
            elif kind == 1:
                (size,) = struct.unpack_from("<i", body, pos)
                pos += size
            else:
                raise ValueError("unknown OP_MSG section kind %d" % kind)
        if reply is None:
            raise ValueError("reply has no body section")
        return reply

    def close(self):
        self.sock.close()


def _ok(reply):
    return reply.get("ok") in (1, 1.0, True)


def _check(reply, what):
    if not _ok(reply):
        raise RuntimeError("%s failed: %r" % (what, reply))
    return reply


def parse_address(address):
    a = address
    if a.startswith("mongodb://"):
        a = a[len("mongodb://"):]
        a = a.split("/", 1)[0].split("?", 1)[0]
        a = a.rsplit("@", 1)[-1].split(",", 1)[0]
    host, _, port = a.rpartition(":")
    if not host or not port.isdigit():
        raise ValueError("address must be HOST:PORT or mongodb://HOST:PORT/, got %r" % address)
    return host.strip("[]"), int(port)


def run(address, timeout, roundtrip):
    host, port = parse_address(address)
    conn = Conn(host, port, timeout)
    try:
        reply = _check(conn.command({"ping": 1, "$db": "admin"}), "ping")
        if not roundtrip:
            return "ping ok: %r" % reply
        db = "redcrawl_ping_%d_%d" % (os.getpid(), int(time.time() * 1000) % 1000000)
        doc = {"_id": "probe-1", "n": 42, "s": "héllo", "tags": ["a", "b"], "nested": {"x": 1.5}}
        r = _check(conn.command({"insert": "probe", "documents": [doc], "$db": db}), "insert")
        if r.get("n") != 1:
            raise RuntimeError("insert reported n=%r" % r.get("n"))
        r = _check(conn.command({"find": "probe", "filter": {"_id": "probe-1"}, "$db": db}), "find")
        batch = r.get("cursor", {}).get("firstBatch", [])
        if len(batch) != 1 or batch[0] != doc:
            raise RuntimeError("find returned %r, expected [%r]" % (batch, doc))
        _check(conn.command({"dropDatabase": 1, "$db": db}), "dropDatabase")
        return "ping, insert, find, dropDatabase ok (db %s)" % db
    finally:
        conn.close()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("address", help="HOST:PORT or mongodb://HOST:PORT/")
    p.add_argument("--timeout", type=float, default=5.0, help="socket timeout in seconds")
    p.add_argument("--roundtrip", action="store_true", help="also insert/find/drop a document")
    p.add_argument("--quiet", action="store_true", help="print nothing on success")
    args = p.parse_args()
    try:
        msg = run(args.address, args.timeout, args.roundtrip)
    except Exception as e:  # noqa: BLE001 - any failure means "not ready"
        print("mongo_ping: %s: %s: %s" % (args.address, type(e).__name__, e), file=sys.stderr)
        return 1
    if not args.quiet:
        print(msg)
    return 0


if __name__ == "__main__":
    sys.exit(main())
