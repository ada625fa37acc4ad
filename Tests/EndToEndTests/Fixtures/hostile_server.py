"""A scripted CalDAV server that answers the way a hostile or broken one would, for taskcal's
tests. It serves one calendar, /anna/diary/, on a free loopback port (printed on the first line
of standard output) and logs every request it gets ("METHOD PATH") to LOG.

    hostile_server.py SCENARIO LOG

Its answers to PROPFIND (depth 0: the calendar) are those of a sound server; SCENARIO decides
what the calendar's listing (REPORT sync-collection, PROPFIND depth 1) and its objects
(calendar-multiget, calendar-query) are:

  outside   members outside the calendar: another calendar's object, `..` out of it, another
            server's address
  bomb      the listing is an XML bomb (entities nested ten deep, 10^9 expansions)
  entity    the listing holds an external entity pointing at a local file
  deep      the listing is 100,000 elements nested in one another
  huge      the listing is 100 MB of valid XML (one response, a long etag)
  cut       the listing's body stops halfway (Content-Length says more, the connection closes)
  error500  the listing is a 500 Internal Server Error
  midway    the listing is sound (two objects); fetching them is a 500
  redirect  the listing redirects (307) to the calendar of another server
"""
import socketserver
import sys
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

CALENDAR = "/anna/diary/"
SCENARIO = sys.argv[1]
LOG = sys.argv[2]
LOCK = threading.Lock()

EVENT = (
    "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//hostile//EN\r\nBEGIN:VEVENT\r\n"
    "UID:{uid}\r\nDTSTAMP:20261101T000000Z\r\nDTSTART:20261210T{hour}0000Z\r\n"
    "DTEND:20261210T{hour}3000Z\r\nSUMMARY:{name}\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
)


def response(href, etag=None, status=None, data=None):
    if status:
        return f"<d:response><d:href>{href}</d:href><d:status>HTTP/1.1 {status}</d:status></d:response>"
    props = f"<d:getetag>\"{etag}\"</d:getetag>"
    if data is not None:
        props += f"<c:calendar-data>{data}</c:calendar-data>"
    return (f"<d:response><d:href>{href}</d:href><d:propstat><d:prop>{props}</d:prop>"
            "<d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>")


def multistatus(body, token=None):
    token_xml = f"<d:sync-token>{token}</d:sync-token>" if token else ""
    return ('<?xml version="1.0" encoding="utf-8"?>\n<d:multistatus xmlns:d="DAV:" '
            f'xmlns:c="urn:ietf:params:xml:ns:caldav">{body}{token_xml}</d:multistatus>')


def listing():
    """The calendar's members as SCENARIO has them, as a multistatus."""
    if SCENARIO == "outside":
        return multistatus(
            response("/anna/other/stolen.ics", "1")
            + response(CALENDAR + "../other/escaped.ics", "2")
            + response("http://calendar.example.org/anna/diary/elsewhere.ics", "3"),
            "token-1")
    if SCENARIO == "bomb":
        entities = '<!ENTITY a0 "boom">' + "".join(
            f'<!ENTITY a{i} "{("&a" + str(i - 1) + ";") * 10}">' for i in range(1, 10))
        return ('<?xml version="1.0"?>\n<!DOCTYPE d:multistatus [' + entities + ']>\n'
                '<d:multistatus xmlns:d="DAV:"><d:response><d:href>&a9;</d:href>'
                '<d:status>HTTP/1.1 404 Not Found</d:status></d:response></d:multistatus>')
    if SCENARIO == "entity":
        return ('<?xml version="1.0"?>\n<!DOCTYPE d:multistatus [<!ENTITY secret SYSTEM '
                '"file:///etc/passwd">]>\n<d:multistatus xmlns:d="DAV:"><d:response>'
                f'<d:href>{CALENDAR}&secret;.ics</d:href><d:propstat><d:prop><d:getetag>"1"'
                '</d:getetag></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat>'
                '</d:response></d:multistatus>')
    if SCENARIO == "deep":
        return ('<?xml version="1.0"?>\n<d:multistatus xmlns:d="DAV:">' + "<d:x>" * 100_000
                + "</d:x>" * 100_000 + "</d:multistatus>")
    if SCENARIO == "midway":
        return multistatus(response(CALENDAR + "one.ics", "1") + response(CALENDAR + "two.ics", "2"),
                           "token-1")
    return multistatus("", "token-1")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, body, extra=()):
        data = body.encode() if isinstance(body, str) else body
        self.send_response(status)
        self.send_header("Content-Type", "application/xml; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        for name, value in extra:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def handle_one(self):
        length = int(self.headers.get("Content-Length") or 0)
        request = self.rfile.read(length).decode(errors="replace") if length else ""
        with LOCK, open(LOG, "a") as log:
            log.write(f"{self.command} {self.path}\n")
        if self.command == "PROPFIND" and self.headers.get("Depth") == "0":
            return self.send(207, multistatus(
                f"<d:response><d:href>{CALENDAR}</d:href><d:propstat><d:prop><d:resourcetype>"
                "<d:collection/><c:calendar/></d:resourcetype><d:displayname>Diary</d:displayname>"
                "<d:sync-token>token-0</d:sync-token></d:prop><d:status>HTTP/1.1 200 OK"
                "</d:status></d:propstat></d:response>"))
        listing_asked = (self.command == "REPORT" and "sync-collection" in request) or (
            self.command == "PROPFIND")
        if listing_asked:
            return self.listing()
        if self.command == "REPORT":  # multiget or query: the objects
            if SCENARIO == "midway":
                return self.send(500, "<error>objects are not served today</error>")
            return self.send(207, multistatus(""))
        if self.command in ("PUT", "DELETE"):
            self.send_response(201 if self.command == "PUT" else 204)
            self.send_header("ETag", '"new"')
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send(405, "<error/>")

    def listing(self):
        if SCENARIO == "error500":
            return self.send(500, "<error>the database is down</error>")
        if SCENARIO == "redirect":
            self.send_response(307)
            self.send_header("Location", "http://127.0.0.2:9/anna/diary/")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if SCENARIO == "cut":
            body = listing().encode()
            self.send_response(207)
            self.send_header("Content-Type", "application/xml; charset=utf-8")
            self.send_header("Content-Length", str(len(body) * 2 + 1000))
            self.end_headers()
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        if SCENARIO == "huge":
            head = multistatus(response(CALENDAR + "big.ics", "x"), "token-1").encode()
            size = 100 << 20
            filler = b"<!-- " + b"x" * 65_000 + b" -->"
            self.send_response(207)
            self.send_header("Content-Type", "application/xml; charset=utf-8")
            count = size // len(filler)
            self.send_header("Content-Length", str(len(head) + count * len(filler)))
            self.end_headers()
            self.wfile.write(head)
            try:
                for _ in range(count):
                    self.wfile.write(filler)
            except (BrokenPipeError, ConnectionResetError):
                pass
            return
        self.send(207, listing())

    do_PROPFIND = do_REPORT = do_PUT = do_DELETE = do_GET = do_MKCALENDAR = handle_one


class Server(socketserver.ThreadingMixIn, HTTPServer):
    daemon_threads = True


def main():
    server = Server(("127.0.0.1", 0), Handler)
    print(server.server_port, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
