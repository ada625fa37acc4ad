"""A real DAViCal CalDAV server (Debian's `davical`: PHP on PostgreSQL) for taskcal's tests, on
a free loopback port, with the user anna (password s3cret-Radicale) whose principal and
calendar home is /caldav.php/anna/. Prints its port on the first line of standard output.

    davical_server.py STORAGE [--die-after-writes N] [--log-writes FILE]

STORAGE holds the server's PostgreSQL cluster (a copy of a template built once per machine,
in /tmp, since creating DAViCal's database takes seconds); started again on the same STORAGE,
the server has what it had. The web server is PHP's own (`php -S`), run with Debian's
/etc/davical/config.php; this process becomes it, so killing it stops the server, and a
watchdog then stops the cluster. The options are radicale_server.py's: with
--die-after-writes N the server dies at the N+1th PUT or DELETE, with --log-writes each PUT or
DELETE is logged ("PUT /caldav.php/anna/...").

Needs root (the cluster runs as the postgres user) and `apt-get install davical php-cli`.
"""
import ctypes
import fcntl
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import time

USER = "anna"
PASSWORD = "s3cret-Radicale"
TEMPLATE = "/tmp/taskcal-davical-template-1"
HTDOCS = "/usr/share/davical/htdocs"
ROUTER = """<?php
// Counts and logs the writes taskcal's tests ask for, then lets DAViCal answer.
$method = $_SERVER['REQUEST_METHOD'];
if ($method === 'PUT' || $method === 'DELETE') {
    $log = getenv('DAVICAL_LOG_WRITES');
    if ($log) {
        file_put_contents($log, $method . ' ' . parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH)
            . "\\n", FILE_APPEND | LOCK_EX);
    }
    $limit = getenv('DAVICAL_DIE_AFTER_WRITES');
    if ($limit !== false && $limit !== '') {
        $counter = getenv('DAVICAL_WRITE_COUNT');
        $done = (int) @file_get_contents($counter);
        if ($done >= (int) $limit) {
            posix_kill(getmypid(), SIGKILL);
        }
        file_put_contents($counter, (string) ($done + 1));
    }
}
return false;
"""


def binaries():
    versions = sorted(int(v) for v in os.listdir("/usr/lib/postgresql") if v.isdigit())
    return f"/usr/lib/postgresql/{versions[-1]}/bin"


def as_postgres(arguments, **options):
    """Runs a command as the postgres user (the server refuses to run as root)."""
    return subprocess.run(["runuser", "-u", "postgres", "--"] + arguments, check=True,
                          stdout=subprocess.DEVNULL, **options)


def give_to_postgres(path):
    account = pwd.getpwnam("postgres")
    os.chown(path, account.pw_uid, account.pw_gid)


def start_cluster(data, sockets):
    """Starts the cluster in `data`, listening on a Unix socket in `sockets` only."""
    pid_file = os.path.join(data, "postmaster.pid")
    for _ in range(100):  # a cluster stopped a moment ago may still be shutting down
        if not os.path.exists(pid_file):
            break
        time.sleep(0.1)
    as_postgres([binaries() + "/pg_ctl", "-D", data, "-w", "-l", data + "/../postgres.log",
                 "-o", f"-c listen_addresses='' -k {sockets} -p 5432", "start"])


def stop_cluster(data):
    subprocess.run(["runuser", "-u", "postgres", "--", binaries() + "/pg_ctl", "-D", data,
                    "-m", "immediate", "-w", "stop"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def psql(sockets, sql, database="davical"):
    as_postgres([binaries() + "/psql", "-h", sockets, "-p", "5432", "-U", "postgres", "-X",
                 "-q", "-v", "ON_ERROR_STOP=1", "-d", database, "-c", sql])


def build_template():
    """DAViCal's database, created as its administrators would, with anna in it: once."""
    with open(TEMPLATE + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if os.path.isdir(TEMPLATE):
            return
        building = f"{TEMPLATE}.building-{os.getpid()}"
        os.makedirs(building, mode=0o700)
        give_to_postgres(building)
        data = building + "/data"
        as_postgres([binaries() + "/initdb", "-D", data, "-A", "trust", "-U", "postgres",
                     "-E", "UTF8", "--locale=C", "--no-sync"])
        start_cluster(data, building)
        try:
            environment = dict(os.environ, PGHOST=building, PGPORT="5432", PGUSER="postgres")
            as_postgres(["/usr/share/davical/dba/create-database.sh", "davical",
                         "admin-" + PASSWORD], env=environment, stderr=subprocess.DEVNULL)
            psql(building, f"""
                INSERT INTO usr (active, email_ok, updated, username, password, fullname, email)
                    VALUES (TRUE, current_date, current_date, '{USER}', '**{PASSWORD}',
                            'Anna', 'anna@example.org');
                INSERT INTO principal (type_id, user_no, displayname)
                    SELECT 1, user_no, 'Anna' FROM usr WHERE username = '{USER}';
                """)
        finally:
            stop_cluster(data)
        os.rename(building, TEMPLATE)


def die_with_parent():
    """In the web server's process before it starts: SIGKILL it when this process dies."""
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def watch(data, reading, writing):
    """In a child of its own: once this process has gone (the pipe's other end closes), stops
    the cluster."""
    if os.fork() != 0:
        os.close(reading)
        return
    os.close(writing)
    os.setsid()
    for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):  # a pkill of the fixture
        signal.signal(number, signal.SIG_IGN)
    try:
        os.read(reading, 1)
    finally:
        stop_cluster(data)
        os._exit(0)


def main():
    storage = os.path.abspath(sys.argv[1])
    options = dict(zip(sys.argv[2::2], sys.argv[3::2]))
    data = os.path.join(storage, "data")
    if not os.path.isdir(data):
        build_template()
        os.makedirs(storage, exist_ok=True)
        shutil.copytree(TEMPLATE + "/data", data, symlinks=True)
        for folder, subfolders, files in os.walk(storage):
            for name in [folder] + [os.path.join(folder, f) for f in subfolders + files]:
                give_to_postgres(name)
        os.chmod(data, 0o700)
    start_cluster(data, storage)
    router = os.path.join(storage, "router.php")
    with open(router, "w") as file:
        file.write(ROUTER)
    environment = dict(os.environ, PGHOST=storage, PGPORT="5432",
                       DAVICAL_WRITE_COUNT=os.path.join(storage, "writes"))
    if "--die-after-writes" in options:
        environment["DAVICAL_DIE_AFTER_WRITES"] = options["--die-after-writes"]
        with open(environment["DAVICAL_WRITE_COUNT"], "w") as counter:
            counter.write("0")
    if "--log-writes" in options:
        environment["DAVICAL_LOG_WRITES"] = options["--log-writes"]
    watch(data, *os.pipe())
    for _ in range(20):
        port = free_port()
        php = subprocess.Popen(
            ["php", "-S", f"127.0.0.1:{port}", "-t", HTDOCS, router], env=environment,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=open(os.path.join(storage, "php.log"), "ab"),
            preexec_fn=die_with_parent)
        for _ in range(50):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if php.poll() is not None:
                    break
                time.sleep(0.05)
        if php.poll() is None:
            break
    else:
        sys.exit("php -S did not start")
    # This process lives as long as the web server: the test kills it, and the web server
    # dies with it (PR_SET_PDEATHSIG); when either is gone, the watchdog sees the pipe close.
    print(port, flush=True)
    php.wait()


if __name__ == "__main__":
    main()
