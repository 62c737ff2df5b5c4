# Receives the server's webhook deliveries and prints each one whose Standard
# Webhooks signature holds, as main.go beside it does (Python 3.9 or later,
# standard library only):
#
#   WEBHOOK_SECRET=whsec_... python3 examples/webhookreceiver/receiver.py

import base64, hashlib, hmac, os, time
from http.server import BaseHTTPRequestHandler, HTTPServer

KEY = base64.b64decode(os.environ["WEBHOOK_SECRET"].removeprefix("whsec_"))

class Hook(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        wid, ts = self.headers["webhook-id"], self.headers["webhook-timestamp"]
        mac = hmac.new(KEY, f"{wid}.{ts}.".encode() + body, hashlib.sha256).digest()
        want, sigs = "v1," + base64.b64encode(mac).decode(), self.headers["webhook-signature"].split()
        ok = ts.isdigit() and abs(time.time() - int(ts)) < 300 and any(hmac.compare_digest(s, want) for s in sigs)
        self.send_response(204 if ok else 401)
        self.end_headers()
        if ok:
            print(f"verified {wid}: {body.decode()}", flush=True)  # skip an id already handled

host, port = os.environ.get("RECEIVER_ADDR", "127.0.0.1:9000").rsplit(":", 1)
HTTPServer((host, int(port)), Hook).serve_forever()
