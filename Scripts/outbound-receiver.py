"""The office's receiver and a mail server, for tests, the demo and benchmarks (Scripts/outbound-fixture).

Run with /usr/bin/python3 (Debian's python3-aiosmtpd). Everything listens on 127.0.0.1 only.

HTTPS receivers (http.server + ssl, HTTP/1.1 keep-alive), one thread each:
  - the main one, certificate from the fixture CA;
  - an mTLS one that also demands a client certificate from the fixture CA;
  - a "wrong" one whose certificate comes from another CA: a client that verifies gets nothing.
What a POST gets is chosen by its path:
  /ok                          200
  /status/CODE                 CODE (429 and 503 carry Retry-After: 120; 301, 302, 307 and 308 a
                               Location; 413 nginx's HTML page)
  /seq/A,B,C/TAG               the n-th request with TAG gets the n-th answer (the last repeats);
                               an answer is a status code, "slow" (no answer for 30 s) or "drop"
                               (the connection is closed without an answer)
  /slow, /drop                 as in /seq
Each request that reaches a handler is recorded as one JSON line in DIR/received.jsonl: path,
the answer, Idempotency-Key, Authorization, the client's port (connection reuse), and each
multipart part's name, file name, type, size and SHA-256, with the `form` part's JSON text.
With --count-only, only path, key and sizes are recorded (the benchmark).

SMTP (aiosmtpd) with STARTTLS required before MAIL, AUTH PLAIN/LOGIN accepted for user
`mailer` with the password in DIR/mail.pw; each message is kept as DIR/mail/N.eml with its
envelope in DIR/mail/N.json.
"""
import argparse
import hashlib
import http.server
import json
import os
import re
import socket
import ssl
import sys
import threading
import time

lock = threading.Lock()
counters = {}


def answer_for(path):
    parts = path.strip("/").split("/")
    if parts[0] == "ok":
        return "200"
    if parts[0] == "status" and len(parts) > 1:
        return parts[1]
    if parts[0] in ("slow", "drop"):
        return parts[0]
    if parts[0] == "seq" and len(parts) > 2:
        answers = parts[1].split(",")
        with lock:
            n = counters.get(path, 0)
            counters[path] = n + 1
        return answers[min(n, len(answers) - 1)]
    return "404"


def split_multipart(ctype, body):
    """(name, filename, type, payload) of each part of a multipart/form-data body: a plain split
    on the boundary (the email package took seconds per 100 MB)."""
    match = re.search(r'boundary="?([^";]+)"?', ctype)
    if not match:
        return []
    delimiter = b"--" + match.group(1).encode()
    result = []
    for segment in body.split(delimiter)[1:]:
        if segment.startswith(b"--"):
            break
        head, _, payload = segment[2:].partition(b"\r\n\r\n")
        if payload.endswith(b"\r\n"):
            payload = payload[:-2]
        headers = head.decode("utf-8", "replace")
        name = re.search(r'\bname="([^"]*)"', headers)
        filename = re.search(r'\bfilename="([^"]*)"', headers)
        part_type = re.search(r'(?im)^content-type:\s*([^;\r\n]+)', headers)
        result.append((name.group(1) if name else None, filename.group(1) if filename else None,
                       part_type.group(1).strip() if part_type else "text/plain", payload))
    return result


def make_handler(log_path, count_only):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def setup(self):
            super().setup()
            # The answer goes out as two writes (headers, body): without TCP_NODELAY the second
            # waits for the client's delayed ACK, 40 ms per request.
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def do_POST(self):
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length) if length else b""
            if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                body = self.read_chunked()
            answer = answer_for(self.path)
            record = {
                "path": self.path,
                "answer": answer,
                "idempotencyKey": self.headers.get("Idempotency-Key"),
                "authorization": self.headers.get("Authorization"),
                "clientPort": self.client_address[1],
                "bytes": len(body),
            }
            ctype = self.headers.get("Content-Type", "")
            if ctype.startswith("multipart/form-data"):
                parts = []
                for name, filename, part_type, payload in split_multipart(ctype, body):
                    entry = {"name": name, "filename": filename, "type": part_type, "size": len(payload),
                             "sha256": hashlib.sha256(payload).hexdigest()}
                    if name == "form" and not count_only:
                        entry["json"] = payload.decode("utf-8")
                    parts.append(entry)
                record["parts"] = parts
            with lock:
                with open(log_path, "a") as log:
                    log.write(json.dumps(record) + "\n")
            if answer == "drop":
                self.close_connection = True
                self.connection.shutdown(2)
                return
            if answer == "slow":
                time.sleep(30)
                answer = "200"
            status = int(answer)
            text = {200: "stored", 409: "conflict: another version of this form is being processed",
                    422: "unprocessable: template T-17 is unknown to the office"}.get(status, "answer %d" % status)
            content_type = "text/plain"
            if status == 413:
                # What nginx in front of the office answers when client_max_body_size is exceeded.
                text = ("<html>\r\n<head><title>413 Request Entity Too Large</title></head>\r\n<body>\r\n"
                        "<center><h1>413 Request Entity Too Large</h1></center>\r\n<hr><center>nginx/1.22.1</center>\r\n"
                        "</body>\r\n</html>")
                content_type = "text/html"
            data = (text + "\n").encode()
            self.send_response(status)
            if status in (429, 503):
                self.send_header("Retry-After", "120")
            if status in (301, 302, 307, 308):
                self.send_header("Location", "https://office.example/mi/v2/forms")
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def read_chunked(self):
            data = b""
            while True:
                size = int(self.rfile.readline().strip(), 16)
                if size == 0:
                    self.rfile.readline()
                    return data
                data += self.rfile.read(size)
                self.rfile.readline()

    return Handler


def serve_https(port, cert, key, ca, require_client, log_path, count_only):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), make_handler(log_path, count_only))
    server.daemon_threads = True
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    if require_client:
        context.verify_mode = ssl.CERT_REQUIRED
        context.load_verify_locations(ca)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return server


def serve_smtp(port, cert, key, directory, password):
    from aiosmtpd.controller import Controller
    from aiosmtpd.smtp import AuthResult

    os.makedirs(os.path.join(directory, "mail"), exist_ok=True)

    class Handler:
        count = 0

        async def handle_DATA(self, server, session, envelope):
            with lock:
                Handler.count += 1
                n = Handler.count
            base = os.path.join(directory, "mail", "%d" % n)
            with open(base + ".eml", "wb") as f:
                f.write(envelope.original_content or envelope.content)
            with open(base + ".json", "w") as f:
                json.dump({"from": envelope.mail_from, "to": envelope.rcpt_tos,
                           "tls": session.ssl is not None,
                           "login": bool(session.authenticated)}, f)
            return "250 OK"

    def authenticator(server, session, envelope, mechanism, auth_data):
        ok = auth_data.login == b"mailer" and auth_data.password == password.encode()
        return AuthResult(success=ok)

    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    controller = Controller(Handler(), hostname="127.0.0.1", port=port, tls_context=context,
                            require_starttls=True, authenticator=authenticator, auth_required=False,
                            auth_require_tls=True)
    controller.start()
    return controller


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--https-port", type=int, required=True)
    parser.add_argument("--mtls-port", type=int, required=True)
    parser.add_argument("--wrong-port", type=int, required=True)
    parser.add_argument("--smtp-port", type=int, default=0)
    parser.add_argument("--count-only", action="store_true")
    args = parser.parse_args()
    tls = os.path.join(args.dir, "tls")
    log_path = os.path.join(args.dir, "received.jsonl")
    ca = os.path.join(tls, "ca.pem")
    serve_https(args.https_port, os.path.join(tls, "server.pem"), os.path.join(tls, "server.key"), ca, False,
                log_path, args.count_only)
    serve_https(args.mtls_port, os.path.join(tls, "server.pem"), os.path.join(tls, "server.key"), ca, True,
                log_path, args.count_only)
    serve_https(args.wrong_port, os.path.join(tls, "wrong-server.pem"), os.path.join(tls, "wrong-server.key"), ca,
                False, log_path, args.count_only)
    if args.smtp_port:
        with open(os.path.join(args.dir, "mail.pw")) as f:
            password = f.readline().strip()
        serve_smtp(args.smtp_port, os.path.join(tls, "server.pem"), os.path.join(tls, "server.key"), args.dir, password)
    with open(os.path.join(args.dir, "ready"), "w") as f:
        f.write("ready\n")
    threading.Event().wait()


if __name__ == "__main__":
    sys.exit(main())
