#!/usr/bin/env python3
"""tests/fleet/ingest.py - a loopback receiver for the contract test of the push client (t5010):
every request is checked against Pyroscope's documented ingest API, and the pprof it carries is
decoded.  A contract test, not a Pyroscope: it checks what the documents and the server's code
say a request must be, and answers as a real server would or as the test asks (an error status,
or no answer at all).

What it checks, and where each rule comes from:
  - POST to <prefix>/ingest: "There is one primary endpoint: POST /ingest.  It accepts profile
    data in the request body and metadata as query parameters." (Pyroscope docs, "Server HTTP
    API", Ingestion).
  - Only the documented parameters (name, from, until, format, sampleRate, spyName, units,
    aggregationType), each once; name, from and until are "required".
  - name is APP{key=value,...} ("my.awesome.app.cpu{env=staging,region=us-west-1}"), read as
    api/model/labelset Parse reads it: the application name of letters, digits, _ . - /
    (ValidateServiceName), keys of letters, digits, _ . (ValidateLabelName), a value ending at
    , or }.  The name must be percent-encoded in the query as Go's url.Values.Encode would
    encode it, and say what the test expects (--app, --labels).
  - from and until: UNIX seconds ("UNIX time of when the profiling started/stopped"), from not
    after until.
  - format=pprof, and then the body is the profile itself: ingest_handler.go takes the whole
    body as pprof.RawProfile{RawData} for format=pprof; multipart/form-data (the "profile"
    form field) is the way without format=pprof, so a multipart Content-Type here is an error.
  - The body: Content-Length as sent, gzip (pprof.RawFromBytes accepts gzip or plain), and a
    valid profile.proto: every field's wire type right, string_table[0] "", sample types that
    name strings in the table, and a sample type Pyroscope maps to a metric of its own ("cpu"
    to process_cpu, or "wall").
A request that breaks a rule gets 400 with the reasons and is logged with them; the test fails
on any logged problem.  Each request is one JSON line in --log; each body is kept in --save.
"""
import argparse
import gzip
import json
import os
import re
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DOCUMENTED = {"name", "from", "until", "format", "sampleRate", "spyName", "units",
              "aggregationType"}
SERVICE_NAME = re.compile(r"^[A-Za-z0-9_./-]+$")
LABEL_NAME = re.compile(r"^[A-Za-z0-9_.]+$")


def varint(b, i):
    shift = value = 0
    while True:
        if i >= len(b) or shift > 63:
            raise ValueError("truncated varint")
        c = b[i]
        i += 1
        value |= (c & 0x7F) << shift
        shift += 7
        if c < 0x80:
            return value, i


def fields(b):
    """(number, wire type, value) of each field of one protobuf message; raises on bad data."""
    i = 0
    while i < len(b):
        key, i = varint(b, i)
        num, wt = key >> 3, key & 7
        if num == 0:
            raise ValueError("field number 0")
        if wt == 0:
            v, i = varint(b, i)
        elif wt == 2:
            n, i = varint(b, i)
            if i + n > len(b):
                raise ValueError("field %d runs past the message" % num)
            v, i = b[i:i + n], i + n
        elif wt == 1 or wt == 5:
            n = 8 if wt == 1 else 4
            if i + n > len(b):
                raise ValueError("fixed field %d truncated" % num)
            v, i = b[i:i + n], i + n
        else:
            raise ValueError("wire type %d of field %d" % (wt, num))
        yield num, wt, v


def check_profile(raw):
    """Problems of a gzipped profile.proto (profile.proto of google/pprof), and a summary."""
    if raw[:2] != b"\x1f\x8b":
        return ["the body is not gzip"], {}
    try:
        b = gzip.decompress(raw)
    except (OSError, EOFError) as e:
        return ["the body does not gunzip: %s" % e], {}
    strings, types, samples = [], [], 0
    # profile.proto: 1 sample_type, 2 sample, 3 mapping, 4 location, 5 function, 6 string_table
    # (all messages or strings: wire type 2), 7-12 varints, 13 comment (packed or varint).
    try:
        for num, wt, v in fields(b):
            if num in (1, 2, 3, 4, 5, 6, 11) and wt != 2:
                return ["field %d has wire type %d" % (num, wt)], {}
            if num == 6:
                strings.append(v.decode("utf-8"))
            elif num == 1:
                t = dict((n, x) for n, w, x in fields(v) if w == 0)
                types.append((t.get(1, 0), t.get(2, 0)))
            elif num == 2:
                list(fields(v))
                samples += 1
            elif num in (3, 4, 5, 11):
                list(fields(v))
    except (ValueError, UnicodeDecodeError) as e:
        return ["not a profile.proto: %s" % e], {}
    problems = []
    if not strings or strings[0] != "":
        problems.append("string_table[0] is not the empty string")
    if not types:
        problems.append("no sample_type")
    names = []
    for t, u in types:
        if t >= len(strings) or u >= len(strings):
            problems.append("a sample_type names a string past the table")
        else:
            names.append("%s/%s" % (strings[t], strings[u]))
    if not any(n.split("/")[0] in ("cpu", "wall") for n in names):
        problems.append("no cpu or wall sample type: Pyroscope would not name it process_cpu")
    return problems, {"sample_types": names, "samples": samples, "bytes": len(b)}


def parse_name(name):
    """api/model/labelset Parse: APP{k=v,...} -> (app, {k: v}), or raises ValueError."""
    app, brace, rest = name.partition("{")
    app = app.strip()
    if not SERVICE_NAME.match(app):
        raise ValueError("application name %r" % app)
    labels = {}
    if brace:
        if not rest.endswith("}") or "}" in rest[:-1]:
            raise ValueError("labels not closed by one }")
        body = rest[:-1]
        for kv in body.split(",") if body else []:
            k, eq, v = kv.partition("=")
            if not eq or not LABEL_NAME.match(k.strip()) or k.strip() == "__name__":
                raise ValueError("label %r" % kv)
            labels[k.strip()] = v.strip()
    return app, labels


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def answer(self, status, text=b"", headers=()):
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(text)))
        self.end_headers()
        self.wfile.write(text)

    def do_GET(self):
        self.server.record({"method": "GET", "problems": ["not a POST"]})
        self.answer(405)

    do_PUT = do_GET

    def do_POST(self):
        srv = self.server
        problems = []
        url = urllib.parse.urlsplit(self.path)
        if url.path != srv.opts.prefix + "/ingest":
            problems.append("path %r, not %r" % (url.path, srv.opts.prefix + "/ingest"))
        raw = {}
        for part in url.query.split("&") if url.query else []:
            k, _, v = part.partition("=")
            if k in raw:
                problems.append("parameter %s given twice" % k)
            raw[k] = v
        q = {k: urllib.parse.unquote(v) for k, v in raw.items()}
        for k in sorted(set(q) - DOCUMENTED):
            problems.append("undocumented parameter %s" % k)
        for k in ("name", "from", "until"):
            if k not in q:
                problems.append("required parameter %s missing" % k)
        if q.get("format") != "pprof":
            problems.append("format is %r, not pprof" % q.get("format"))
        name = q.get("name", "")
        if raw.get("name", "").upper() != urllib.parse.quote(name, safe="").upper():
            problems.append("name not percent-encoded as url.Values.Encode would: %r"
                            % raw.get("name"))
        try:
            app, labels = parse_name(name)
            if app != srv.opts.app:
                problems.append("application %r, not %r" % (app, srv.opts.app))
            want = dict(kv.split("=", 1) for kv in srv.opts.labels.split(",") if kv)
            if labels != want:
                problems.append("labels %r, not %r" % (labels, want))
        except ValueError as e:
            problems.append("name %r: %s" % (name, e))
        t = {}
        for k in ("from", "until"):
            if not re.fullmatch(r"[0-9]{9,11}", q.get(k, "")):
                problems.append("%s is not UNIX seconds: %r" % (k, q.get(k)))
            else:
                t[k] = int(q[k])
        if len(t) == 2 and t["from"] > t["until"]:
            problems.append("from after until")
        ctype = self.headers.get("Content-Type", "")
        if ctype.startswith("multipart/form-data"):
            problems.append("multipart body with format=pprof: the handler takes the body raw")
        length = self.headers.get("Content-Length")
        body = b""
        if length is None or not length.isdigit():
            problems.append("no Content-Length")
        else:
            body = self.rfile.read(int(length))
            if len(body) != int(length):
                problems.append("body shorter than its Content-Length")
        summary = {}
        if body:
            bad, summary = check_profile(body)
            problems += bad
        else:
            problems.append("empty body")
        n = srv.record({"method": "POST", "path": url.path, "query": q, "content_type": ctype,
                        "length": len(body), "problems": problems, **t, **summary,
                        "authorization": self.headers.get("Authorization"),
                        "tenant": self.headers.get("X-Scope-OrgID")},
                       body)
        if srv.opts.hang:
            # Accepted and read, never answered: the client's time-out must end it.
            time.sleep(3600)
            return
        if problems:
            self.answer(400, ("contract: " + "; ".join(problems)).encode())
            return
        status = srv.opts.status[n] if n < len(srv.opts.status) else 200
        headers = [("Retry-After", str(srv.opts.retry_after))] if status in (429, 503) and \
            srv.opts.retry_after else []
        text = b"" if status == 200 else ("status %d asked by the test" % status).encode()
        self.answer(status, text, headers)


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, opts):
        self.opts = opts
        self.lock = threading.Lock()
        self.count = 0
        super().__init__(("127.0.0.1", opts.port), Handler)

    def record(self, entry, body=b""):
        with self.lock:
            n = self.count
            self.count += 1
            entry["n"] = n
            entry["time"] = time.time()
            if body and self.opts.save:
                with open(os.path.join(self.opts.save, "%04d.pb.gz" % n), "wb") as f:
                    f.write(body)
            if self.opts.log:
                with open(self.opts.log, "a") as f:
                    f.write(json.dumps(entry) + "\n")
            return n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--port-file")
    ap.add_argument("--prefix", default="")
    ap.add_argument("--app", required=True)
    ap.add_argument("--labels", default="")
    ap.add_argument("--log")
    ap.add_argument("--save")
    ap.add_argument("--status", default="", help="statuses of the first requests, then 200")
    ap.add_argument("--retry-after", type=int, default=0)
    ap.add_argument("--hang", action="store_true")
    opts = ap.parse_args()
    opts.status = [int(s) for s in opts.status.split(",") if s]
    srv = Server(opts)
    if opts.port_file:
        tmp = opts.port_file + ".tmp"
        with open(tmp, "w") as f:
            f.write("%d\n" % srv.server_address[1])
        os.rename(tmp, opts.port_file)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
