"""A real Radicale CalDAV server for taskcal's tests, on a free loopback port, with
authentication on (htpasswd, plain). Prints its port on the first line of standard output.

    radicale_server.py STORAGE HTPASSWD [--die-after-writes N] [--log-writes FILE]

--die-after-writes N: after N PUT or DELETE requests have been answered, the next PUT or
DELETE makes the whole server exit before answering (a server that goes away mid-sync).
--log-writes FILE: each PUT or DELETE request appends a line "METHOD PATH" to FILE (what a
client really sent, counted on the server's side).
"""
import os
import socketserver
import sys
import threading
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

import radicale
from radicale import config


class QuietHandler(WSGIRequestHandler):
    def log_message(self, *args):
        pass


class ThreadingServer(socketserver.ThreadingMixIn, WSGIServer):
    daemon_threads = True


def main():
    storage, htpasswd = sys.argv[1], sys.argv[2]
    die_after = None
    if "--die-after-writes" in sys.argv:
        die_after = int(sys.argv[sys.argv.index("--die-after-writes") + 1])
    write_log = None
    if "--log-writes" in sys.argv:
        write_log = sys.argv[sys.argv.index("--log-writes") + 1]
    configuration = config.load()
    configuration.update({
        "auth": {"type": "htpasswd", "htpasswd_filename": htpasswd,
                 "htpasswd_encryption": "plain", "delay": "0"},
        "rights": {"type": "owner_only"},
        "storage": {"filesystem_folder": storage},
        "logging": {"level": "warning"},
    }, "test", privileged=True)
    application = radicale.Application(configuration)
    writes = [0]
    lock = threading.Lock()

    def app(environ, start_response):
        if write_log is not None and environ["REQUEST_METHOD"] in ("PUT", "DELETE"):
            with lock:
                with open(write_log, "a") as log:
                    log.write(f"{environ['REQUEST_METHOD']} {environ.get('PATH_INFO', '')}\n")
        if die_after is not None and environ["REQUEST_METHOD"] in ("PUT", "DELETE"):
            with lock:
                if writes[0] >= die_after:
                    sys.stdout.flush()
                    os._exit(0)
                writes[0] += 1
        return application(environ, start_response)

    server = make_server("127.0.0.1", 0, app, server_class=ThreadingServer,
                         handler_class=QuietHandler)
    print(server.server_port, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
