#!/usr/bin/env python3
"""Writes N task records as NDJSON with the samples' mix, deterministically (seeded):
about 20% with an alarm, 5% with an inline attachment of a few KB, and non-ASCII text that
needs escaping and folding.

usage: generate.py N > tasks.ndjson
"""
import base64
import json
import random
import sys

WORDS = ["встреча", "отчёт", "Meet", "review,", "plan;", "会議", "😀", "naïve", "back\\slash", "call",
         "groceries", "dentist", "Überprüfung", "deadline", "sprint", "🇯🇵", "draft", "email"]


def text(rng, low, high):
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(low, high)))


def main():
    count = int(sys.argv[1])
    rng = random.Random(20261122)
    out = sys.stdout
    start = 1_790_000_000
    for index in range(1, count + 1):
        start += rng.randint(600, 7200)
        record = {"id": index, "date_start": str(start), "date_finish": str(start + rng.randint(300, 5400)),
                  "name": text(rng, 2, 6), "description": text(rng, 5, 40).replace(" email", "\nemail")}
        roll = rng.random()
        if roll < 0.20:
            record["alarms"] = [{"action": "display", "trigger": rng.choice(["-PT15M", "-PT5M", "-P1D"]),
                                 "description": text(rng, 2, 5)}]
        if 0.20 <= roll < 0.25:
            payload = bytes(rng.getrandbits(8) for _ in range(rng.randint(1024, 4096)))
            record["attachments"] = [{"filename": f"file-{index}.bin", "mime_type": "application/octet-stream",
                                      "data": base64.b64encode(payload).decode()}]
        out.write(json.dumps(record, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
