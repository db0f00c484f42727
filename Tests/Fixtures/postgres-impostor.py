#!/usr/bin/python3
"""A listener that pretends to be a PostgreSQL server, for the tests of what the console gives
to whoever answers on a store.url host (standard library only, 127.0.0.1 only).

    postgres-impostor.py --port-file F --log F [--cert C --key K] [--ask cleartext|md5|scram]
                         [--accept-and-close]

--cert/--key: answer the client's SSLRequest with 'S' and speak TLS with that certificate (one
the console trusts: the real server's; or an attacker's); without them, answer 'N'.
--ask: the authentication request sent after the start-up message (default cleartext). With
scram, a SASL request naming SCRAM-SHA-256, then, whatever the client answers, a cleartext
request in the same record (a server that switches methods half-way).
--accept-and-close: close every connection as soon as it is accepted.

Each connection appends one JSON line to --log: the start-up parameters, and every message the
client sent after the request (type and payload as text), so a test can see whether a password
went out.
"""
import argparse, json, os, socket, ssl, struct, threading


def read_exactly(stream, count):
    data = b""
    while len(data) < count:
        chunk = stream.recv(count - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data


def read_message(stream):
    header = read_exactly(stream, 5)
    kind, length = header[:1], struct.unpack("!I", header[1:])[0]
    return kind, read_exactly(stream, length - 4)


def auth_request(code, extra=b""):
    return b"R" + struct.pack("!II", 8 + len(extra), code) + extra


def serve(connection, args, tls):
    record = {"tls": False, "startup": {}, "received": []}
    try:
        if args.accept_and_close:
            return
        connection.settimeout(10)
        length, code = struct.unpack("!II", read_exactly(connection, 8))
        if code == 80877103:  # SSLRequest
            if tls:
                connection.sendall(b"S")
                connection = tls.wrap_socket(connection, server_side=True)
                record["tls"] = True
            else:
                connection.sendall(b"N")
            length, code = struct.unpack("!II", read_exactly(connection, 8))
        body = read_exactly(connection, length - 8)
        parts = body.split(b"\0")
        record["startup"] = {parts[i].decode(errors="replace"): parts[i + 1].decode(errors="replace")
                             for i in range(0, len(parts) - 1, 2) if parts[i]}
        if args.ask == "cleartext":
            connection.sendall(auth_request(3))
        elif args.ask == "md5":
            connection.sendall(auth_request(5, b"salt"))
        else:
            connection.sendall(auth_request(10, b"SCRAM-SHA-256\0\0") + auth_request(3))
        while True:
            try:
                kind, payload = read_message(connection)
            except socket.timeout:
                # What the client had to say is said: refuse it, as a server would.
                fields = b"SFATAL\0C28P01\0Mpassword authentication failed\0\0"
                connection.sendall(b"E" + struct.pack("!I", 4 + len(fields)) + fields)
                raise EOFError("answered")
            record["received"].append({"type": kind.decode(errors="replace"),
                                       "payload": payload.rstrip(b"\0").decode(errors="replace")})
            connection.settimeout(1)
    except (EOFError, OSError, ssl.SSLError) as error:
        record["ended"] = str(error) or type(error).__name__
    finally:
        try:
            connection.close()
        except OSError:
            pass
        with open(args.log, "a") as log:
            log.write(json.dumps(record) + "\n")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--cert")
    parser.add_argument("--key")
    parser.add_argument("--ask", choices=["cleartext", "md5", "scram"], default="cleartext")
    parser.add_argument("--accept-and-close", action="store_true")
    args = parser.parse_args()
    tls = None
    if args.cert:
        tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        tls.load_cert_chain(args.cert, args.key)
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    with open(args.port_file + ".tmp", "w") as f:
        f.write(str(listener.getsockname()[1]))
    os.rename(args.port_file + ".tmp", args.port_file)
    while True:
        connection, _ = listener.accept()
        threading.Thread(target=serve, args=(connection, args, tls), daemon=True).start()


if __name__ == "__main__":
    main()
