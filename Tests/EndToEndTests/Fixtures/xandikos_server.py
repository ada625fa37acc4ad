"""A real Xandikos CalDAV server (the server vdirsyncer tests against) for taskcal's tests, on
a free loopback port, serving the principal /anna/ with its calendar home /anna/calendars/.
Prints its port on the first line of standard output.

    xandikos_server.py STORAGE [--die-after-writes N] [--log-writes FILE]

Xandikos has no authentication of its own (it is run behind a web server that has); the
credentials taskcal sends are not checked. The options are radicale_server.py's.
"""
import io
import os
import socketserver
import sys
import threading
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from xandikos.web import SingleUserFilesystemBackend, XandikosApp

PRINCIPAL = "/anna/"


class QuietHandler(WSGIRequestHandler):
    def log_message(self, *args):
        pass


class ThreadingServer(socketserver.ThreadingMixIn, WSGIServer):
    daemon_threads = True


def main():
    storage = os.path.abspath(sys.argv[1])
    die_after = None
    if "--die-after-writes" in sys.argv:
        die_after = int(sys.argv[sys.argv.index("--die-after-writes") + 1])
    write_log = None
    if "--log-writes" in sys.argv:
        write_log = sys.argv[sys.argv.index("--log-writes") + 1]
    os.makedirs(storage, exist_ok=True)
    backend = SingleUserFilesystemBackend(storage)
    backend._mark_as_principal(PRINCIPAL)
    backend.create_principal(PRINCIPAL, create_defaults=False)
    application = XandikosApp(backend, PRINCIPAL, state_dir=os.path.join(storage, ".state"))
    writes = [0]
    lock = threading.Lock()

    def app(environ, start_response):
        method = environ["REQUEST_METHOD"]
        if write_log is not None and method in ("PUT", "DELETE"):
            with lock:
                with open(write_log, "a") as log:
                    log.write(f"{method} {environ.get('PATH_INFO', '')}\n")
        if die_after is not None and method in ("PUT", "DELETE"):
            with lock:
                if writes[0] >= die_after:
                    sys.stdout.flush()
                    os._exit(0)
                writes[0] += 1
        # Xandikos reads a body to its end; wsgiref's input is the connection itself, which
        # stays open: the body is handed over as read, by its Content-Length.
        length = int(environ.get("CONTENT_LENGTH") or 0)
        environ["wsgi.input"] = io.BytesIO(environ["wsgi.input"].read(length) if length else b"")
        return application(environ, start_response)

    server = make_server("127.0.0.1", 0, app, server_class=ThreadingServer,
                         handler_class=QuietHandler)
    print(server.server_port, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
