#!/usr/bin/env python3
"""Offsets of every IANA zone on the system, twice a year from 1970 to 2037, by Python's
zoneinfo (which reads the same TZif files as every other program): the reference the zone
tests compare taskcal's conversions with.

Prints JSON: {"zones": {NAME: [[utc_epoch, offset_seconds, local_noon_epoch], ...]}} where
local_noon_epoch is the instant of 12:00 local on the same day."""
import datetime as dt
import json
import zoneinfo

UTC = dt.timezone.utc
result = {}
for name in sorted(zoneinfo.available_timezones()):
    if name.startswith(("posix/", "right/")) or name in ("localtime", "Factory"):
        continue
    zone = zoneinfo.ZoneInfo(name)
    rows = []
    for year in range(1970, 2038):
        for month in (1, 7):
            instant = dt.datetime(year, month, 15, 12, tzinfo=UTC)
            offset = int(instant.astimezone(zone).utcoffset().total_seconds())
            noon = dt.datetime(year, month, 15, 12, tzinfo=zone)
            rows.append([int(instant.timestamp()), offset, int(noon.timestamp())])
    result[name] = rows
print(json.dumps({"zones": result}))
