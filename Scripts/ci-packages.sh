#!/usr/bin/env bash
# Scripts/ci-packages.sh: the system packages and Python judges that .ci/run and
# Scripts/deep-check.sh need, installed (as root; apt and pip are quiet unless they fail).
set -euo pipefail

export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# libical-dev: the iCalendar library; libsqlite3-dev: the diary store; libssl-dev: OpenSSL's
# libcrypto (private entries' AES-GCM and scrypt, the CalDAV sync's SHA-256);
# libgoogle-perftools-dev: tcmalloc, the allocator the taskcal executable is linked with;
# tzdata: zone data;
# calcurse: an independent importer the end-to-end tests feed our output to; gcc and
# pkg-config build libical's own parser into a judge of our output; man-db reads the man pages
# Scripts/install.sh installs (InstallTests); postgresql: the server the tests start a
# throw-away cluster of, for the PostgreSQL diary (its packaged cluster is not used);
# faketime: the README's examples that show "today" or fire alarms run at a given time;
# dbus, gnome-keyring and libsecret-tools: a Secret Service the tests start, to keep a diary's
# key in as a desktop would; dpkg-dev, binutils, lintian and gdb: the Debian package is built,
# checked, installed, used (a backtrace with the debug symbols' names) and purged.
# libxml2-utils (xmllint), librsvg2-bin (rsvg-convert) and chromium: the pictures (stats, month,
# overlaps --format svg|html) are checked as XML and drawn by real renderers (PictureTests).
# time (GNU time): the peak memory of a sync against hostile server replies (HostileServerTests).
# davical and php-cli: the third CalDAV server of CalDAVTests (Fixtures/davical_server.py runs it
# under `php -S` on a PostgreSQL cluster of its own).
# thunderbird (its omni.ja carries ical.js, run by Node), libkf5calendarcore-dev and g++: the
# readers inside Thunderbird and KOrganizer as judges (Scripts/app_readers.py); no display is
# needed. Node comes with the machine; Debian's nodejs where it does not.
apt-get install -y -qq libical-dev libsqlite3-dev libssl-dev libgoogle-perftools-dev tzdata calcurse gcc pkg-config man-db \
    postgresql faketime dbus gnome-keyring libsecret-tools dpkg-dev binutils lintian gdb \
    bash-completion libxml2-utils librsvg2-bin chromium time davical php-cli \
    thunderbird libkf5calendarcore-dev g++ >/dev/null
command -v node >/dev/null || apt-get install -y -qq nodejs >/dev/null
# Independent judges for the end-to-end tests and the conformance suite: Python's icalendar
# and vobject, and khal, pinned to the versions the suites were checked against.
# Radicale and Xandikos: the CalDAV servers the tests start (Radicale with authentication) for
# push, pull and sync (CalDAVTests runs its suite against each).
# recurring-ical-events: the judge of occurrences (OccurrenceTests).
# ical: the reader of Home Assistant's local calendar, the strictest about zone names.
python3 -m pip install --quiet --disable-pip-version-check icalendar==7.3.0 vobject==0.9.9 \
    khal==0.14.1 radicale==3.9.0 recurring-ical-events==3.8.2 xandikos==0.4.10 ical==14.3.1
