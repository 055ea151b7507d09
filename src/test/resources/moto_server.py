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


# The query string of the request being served, exactly as the client sent it (see below).
_query_as_sent = threading.local()


class KeepQueryAsSent:
    """WSGI middleware: notes each request's raw query string for the IAM signature check."""

    def __init__(self, app):
        self.app = app

    def __call__(self, environ, start_response):
        _query_as_sent.value = environ.get("QUERY_STRING", "")
        return self.app(environ, start_response)


def check_signatures_against_the_query_as_sent():
    """With IAM enforced (INITIAL_NO_AUTH_ACTION_COUNT, lake.iceberg.IamMoto), moto checks each
    request's SigV4 signature against the URL werkzeug rebuilds, whose query has %2F decoded to
    '/'; the client signed the query it sent, %2F and all. So every S3 listing under a prefix
    holding '/' (S3FileIO.listPrefix, the purge worker's) was refused as SignatureDoesNotMatch.
    Check the query as sent instead. Without IAM enforced moto checks no signature: no change."""
    from urllib.parse import urlparse

    from moto.core.authorization import ActionAuthenticatorMixin

    original = ActionAuthenticatorMixin._authenticate_and_authorize_action

    def as_sent(self, iam_request_cls, resource="*"):
        raw = getattr(_query_as_sent, "value", "")
        rebuilt = getattr(self, "uri", None)
        if not raw or rebuilt is None:
            return original(self, iam_request_cls, resource)
        self.uri = urlparse(rebuilt)._replace(query=raw).geturl()
        try:
            return original(self, iam_request_cls, resource)
        finally:
            self.uri = rebuilt

    ActionAuthenticatorMixin._authenticate_and_authorize_action = as_sent


def honour_quiet_deletes():
    """S3's DeleteObjects in quiet mode (<Quiet>true</Quiet>) answers only the keys it failed to
    delete; moto 5.2.1 ignores the flag and answers a <Deleted> element per key. Against moto a
    quiet 1,000-key delete (the purge worker's QuietS3Deletes, the benchmark's boto3 peer) then
    costs its client the parsing of an answer real S3 never sends. Drop those elements when the
    request asked for quiet mode, as S3 does; errors are answered as before."""
    import re

    from moto.s3.responses import S3Response

    original = S3Response._bucket_response_delete_keys
    quiet = re.compile(rb"<Quiet>\s*true\s*</Quiet>", re.IGNORECASE)
    deleted = re.compile(r"<Deleted>.*?</Deleted>", re.DOTALL)

    def as_s3(self, bucket_name, *args, **kwargs):
        answer = original(self, bucket_name, *args, **kwargs)
        body = self.body if isinstance(self.body, bytes) else str(self.body or "").encode()
        if not quiet.search(body) or not isinstance(answer, tuple) or len(answer) != 3:
            return answer
        status, headers, content = answer
        text = content.decode() if isinstance(content, bytes) else content
        text = deleted.sub("", text)
        return status, headers, text.encode() if isinstance(content, bytes) else text

    S3Response._bucket_response_delete_keys = as_s3


class BenchFill:
    """WSGI middleware for the purge benchmark's set-up only (scripts/bench/purge), on only when
    LAKE_MOTO_BENCH_FILL=1: POST /_lake_bench/fill {"bucket": B, "keys": [K, ...]} writes each
    key as a 3-byte object straight into moto's S3 backend, the objects a PUT would have made,
    at about 10,000 a second instead of the 150 a second moto takes PUTs at. Nothing measured
    goes through it: every delete, listing and read is moto's own S3 API."""

    ACCOUNT = "123456789012"  # moto's default account, the one the tests' credentials map to

    def __init__(self, app):
        self.app = app

    def __call__(self, environ, start_response):
        if environ.get("PATH_INFO") != "/_lake_bench/fill" or environ.get("REQUEST_METHOD") != "POST":
            return self.app(environ, start_response)
        import json

        from moto.s3.models import s3_backends

        length = int(environ.get("CONTENT_LENGTH") or 0)
        body = json.loads(environ["wsgi.input"].read(length))
        backend = s3_backends[self.ACCOUNT]["aws"]
        for key in body["keys"]:
            backend.put_object(body["bucket"], key, b"\x01\x02\x03")
        out = json.dumps({"written": len(body["keys"])}).encode()
        start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(out)))])
        return [out]


def exit_when_parent_goes():
    # The parent holds our stdin open for as long as it lives; EOF means it is gone.
    sys.stdin.read()
    os._exit(0)


def main():
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    host = sys.argv[2] if len(sys.argv) > 2 else "127.0.0.1"
    watch_parent = "--exit-on-stdin-eof" in sys.argv[3:]
    check_signatures_against_the_query_as_sent()
    honour_quiet_deletes()
    app = KeepQueryAsSent(DomainDispatcherApplication(create_backend_app))
    if os.environ.get("LAKE_MOTO_BENCH_FILL") == "1":
        app = BenchFill(app)
    # make_server with threaded=False is the server run_simple(..., threaded=False) builds; it is
    # used directly so the bound port is known before announcing readiness.
    server = make_server(host, port, app, threaded=False, request_handler=BoundedReadHandler)
    if watch_parent:
        threading.Thread(target=exit_when_parent_goes, daemon=True).start()
    print(f"MOTO READY port={server.server_port}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
