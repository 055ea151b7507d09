"""Starts moto's DynamoDB-protocol server for the test suite, single-threaded, on loopback.

moto's backends are not thread-safe: a threaded server has lost acknowledged transactional
writes under concurrent requests. This serves one request at a time, which also makes every
conditional write atomic, as on DynamoDB.

Usage: python3 moto_server.py [port [host [--exit-on-stdin-eof]]]
  port 0 (the default) lets the kernel pick a free one; host defaults to 127.0.0.1.

Prints exactly one line on stdout once the socket listens: "MOTO READY port=<port>".
With --exit-on-stdin-eof it exits when its standard input closes, so a test JVM that dies
never leaves it behind (a container has no such parent and runs without the flag).
"""
import os
import sys
import threading

from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app
from werkzeug.serving import WSGIRequestHandler, make_server


class BoundedReadHandler(WSGIRequestHandler):
    """One request at a time means one stalled client would stall everyone: a client that is
    paused (SIGSTOP) halfway through sending its request would hold the only thread forever. A
    read that makes no progress for this long drops that connection instead; the request was never
    processed, so the client's retry is safe."""
    timeout = 2


def exit_when_parent_goes():
    # The parent holds our stdin open for as long as it lives; EOF means it is gone.
    sys.stdin.read()
    os._exit(0)


def main():
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    host = sys.argv[2] if len(sys.argv) > 2 else "127.0.0.1"
    watch_parent = "--exit-on-stdin-eof" in sys.argv[3:]
    app = DomainDispatcherApplication(create_backend_app)
    # make_server with threaded=False is the server run_simple(..., threaded=False) builds; it is
    # used directly so the bound port is known before announcing readiness.
    server = make_server(host, port, app, threaded=False, request_handler=BoundedReadHandler)
    if watch_parent:
        threading.Thread(target=exit_when_parent_goes, daemon=True).start()
    print(f"MOTO READY port={server.server_port}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
