#!/usr/bin/env python3
"""A stand-in HTTP server for answers nginx does not give: serves the one file named on the
command line with range requests, misbehaving by the path asked for:
  /ok/X      correct 206 answers
  /shifted/X a Content-Range one byte off what was asked
  /short/X   announces the whole range, sends half of it and closes
  /dies/X    correct for the first 3 requests, then the server exits (stopped mid-run)
  /changes/X correct, but the ETag of the 4th answer on is another (the file replaced mid-run)
Prints its port on stdout once listening."""
import http.server, os, re, sys

DATA = open(sys.argv[1], "rb").read()
served = {}  # requests per mode

class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a):
        pass
    def do_GET(self):
        mode = self.path.split("/")[1]
        served[mode] = served.get(mode, 0) + 1
        if mode == "dies" and served[mode] > 3:
            os._exit(0)
        m = re.match(r"bytes=(\d*)-(\d*)$", self.headers.get("Range", ""))
        if not m:
            self.send_response(200); self.send_header("Content-Length", str(len(DATA)))
            self.end_headers(); self.wfile.write(DATA); return
        if m.group(1) == "":
            a, b = len(DATA) - int(m.group(2)), len(DATA) - 1
        else:
            a, b = int(m.group(1)), min(int(m.group(2)), len(DATA) - 1)
        body = DATA[a:b + 1]
        shown = (a + 1, b + 1) if mode == "shifted" else (a, b)
        self.send_response(206)
        self.send_header("Content-Range", "bytes %d-%d/%d" % (shown[0], shown[1], len(DATA)))
        self.send_header("Content-Length", str(len(body)))
        if mode == "changes":
            self.send_header("ETag", '"v1"' if served[mode] <= 3 else '"v2"')
        self.end_headers()
        if mode == "short":
            self.wfile.write(body[:len(body) // 2]); self.wfile.flush()
            self.close_connection = True; return
        self.wfile.write(body)

srv = http.server.HTTPServer(("127.0.0.1", 0), H)
print(srv.server_address[1], flush=True)
srv.serve_forever()
