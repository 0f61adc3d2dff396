#!/usr/bin/env python3
"""tests/serve/client.py - an HTTP client that misbehaves on purpose, for t5002.

client.py PORT TOKEN CASE: runs CASE against profil serve on 127.0.0.1:PORT (TOKEN "" for none),
prints what it saw, exits 0 when the server answered as it should.  Raw sockets where a library
would tidy the request (a path with "..", a header too long, a body on GET, silence).
"""
import gzip
import socket
import sys
import threading
import time

PORT = int(sys.argv[1])
TOKEN = sys.argv[2]
CASE = sys.argv[3]


def auth(token=None):
    t = TOKEN if token is None else token
    return "Authorization: Bearer %s\r\n" % t if t else ""


def raw(request, timeout=15):
    """Sends request bytes; returns (status, headers, body) of the answer, status 0 if none."""
    s = socket.create_connection(("127.0.0.1", PORT), timeout=timeout)
    try:
        s.sendall(request if isinstance(request, bytes) else request.encode("latin-1"))
        data = b""
        while True:
            try:
                chunk = s.recv(65536)
            except (ConnectionResetError, socket.timeout):
                break
            if not chunk:
                break
            data += chunk
    finally:
        s.close()
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    try:
        status = int(lines[0].split()[1])
    except (IndexError, ValueError):
        return 0, {}, data
    headers = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        headers[k.strip().lower()] = v.strip()
    return status, headers, body


def get(path, extra="", token=None, method="GET"):
    return raw("%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\n%s%sConnection: close\r\n\r\n"
               % (method, path, auth(token), extra))


def expect(what, got, want, body=b""):
    print("%s: %s (want %s) %s" % (what, got, want, body[:120]))
    return got == want


def is_profile(status, headers, body):
    if status != 200 or headers.get("content-type") != "application/octet-stream":
        return False
    try:
        return len(gzip.decompress(body)) > 0
    except OSError:
        return False


def case_token():
    ok = True
    s, h, b = get("/", token="")
    ok &= expect("no token", s, 401, b) and h.get("www-authenticate") == "Bearer"
    ok &= expect("wrong token", get("/", token="x" * len(TOKEN))[0], 401)
    ok &= expect("token too short", get("/", token=TOKEN[:-1])[0], 401)
    ok &= expect("token too long", get("/", token=TOKEN + "x")[0], 401)
    ok &= expect("Basic", raw("GET / HTTP/1.1\r\nHost: a\r\nAuthorization: Basic %s\r\n"
                              "Connection: close\r\n\r\n" % TOKEN)[0], 401)
    ok &= expect("no token for a profile", get("/debug/pprof/profile?seconds=1", token="")[0], 401)
    ok &= expect("the token", get("/")[0], 200)
    return ok


def case_notfound():
    ok = True
    for path in ["/nope", "/../etc/passwd", "/%2e%2e/etc/passwd", "/..%2fetc%2fpasswd",
                 "/debug/pprof/profile/../../../etc/passwd", "/debug/pprof/heap",
                 "/etc/passwd", "//etc/passwd", "/debug/pprof/profile/", "/index.html"]:
        s, h, b = get(path)
        ok &= expect(path, s, 404, b) and b"root:" not in b
    return ok


def case_badquery():
    ok = True
    for q in ["seconds=0", "seconds=3601", "seconds=abc", "seconds=-1", "seconds=+1",
              "seconds=", "seconds", "seconds=1.5", "seconds=1&seconds=2",
              "seconds=1&seconds=1&seconds=2", "foo=1",
              "seconds=99999999999999999999999"]:
        s, h, b = get("/debug/pprof/profile?" + q)
        ok &= expect(q, s, 400, b) and len(b) > 10
    s, h, b = get("/debug/pprof/profile?seconds=1&seconds=1")
    ok &= expect("the same seconds twice (Parca with params)", s, 200, b[:2])
    s, h, b = get("/", method="POST")
    ok &= expect("POST /", s, 405, b)
    s, h, b = get("/debug/pprof/profile?seconds=1", method="DELETE")
    ok &= expect("DELETE profile", s, 405, b)
    s, h, b = get("/debug/pprof/profile?seconds=1", extra="Content-Length: 5\r\n")
    ok &= expect("a body on GET", s, 400, b)
    return ok


def case_oversized():
    ok = True
    s, h, b = get("/" + "a" * 20000)
    ok &= expect("a URL of 20000 bytes", s, 414, b)
    s, h, b = get("/", extra="".join("X-Pad-%d: %s\r\n" % (i, "b" * 400) for i in range(100)))
    ok &= expect("100 headers of 400 bytes", s, 431, b)
    return ok


def case_concurrent():
    """Five profiles at once: four windows are recorded, the fifth is refused with 429."""
    results = []

    def one():
        results.append(get("/debug/pprof/profile?seconds=3"))
    threads = [threading.Thread(target=one) for _ in range(5)]
    for t in threads:
        t.start()
        time.sleep(0.1)
    for t in threads:
        t.join()
    codes = sorted(r[0] for r in results)
    print("statuses:", codes)
    refused = [r for r in results if r[0] == 429]
    good = [r for r in results if is_profile(*r)]
    for r in refused:
        print("429 says:", r[2])
    return codes == [200, 200, 200, 200, 429] and len(good) == 4 and b"try again" in refused[0][2]


def case_slow():
    """A client that connects and says nothing (or half a request) is closed after the
    timeout, and the server answers others meanwhile."""
    silent = socket.create_connection(("127.0.0.1", PORT), timeout=30)
    half = socket.create_connection(("127.0.0.1", PORT), timeout=30)
    half.sendall(b"GET / HTTP/1.1\r\nHost: a\r\n")
    start = time.time()
    ok = expect("while they wait", get("/")[0], 200)
    for name, s in (("silent", silent), ("half a request", half)):
        try:
            data = s.recv(100)
        except ConnectionResetError:
            data = b""
        took = time.time() - start
        print("%s: closed after %.1f s (%r)" % (name, took, data[:40]))
        ok &= 5 < took < 25
        s.close()
    return ok


def case_flood():
    """200 connections at once, each sending a request a byte at a time or not at all."""
    socks = []
    for i in range(200):
        try:
            socks.append(socket.create_connection(("127.0.0.1", PORT), timeout=5))
        except OSError as e:
            print("connection %d: %s" % (i, e))
    for i, s in enumerate(socks):
        try:
            s.sendall(b"GET / HTTP/1.1\r\n" if i % 2 else b"G")
        except OSError:
            pass
    answered = 0
    for s in socks:
        try:
            s.sendall(b"Host: a\r\n%sConnection: close\r\n\r\n" % auth().encode())
            if s.recv(12).startswith(b"HTTP/1.1 200"):
                answered += 1
        except OSError:
            pass
        s.close()
    print("%d connections made, %d answered 200" % (len(socks), answered))
    # A bounded server: some answered, not all 200 held at once.
    return answered > 0 and expect("after the flood", get("/")[0], 200)


sys.exit(0 if globals()["case_" + CASE]() else 1)
