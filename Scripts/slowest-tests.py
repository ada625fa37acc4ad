#!/usr/bin/env python3
"""The slowest tests of a run, from the xUnit file `swift test --xunit-output` wrote.

    Scripts/slowest-tests.py FILE.xml [COUNT]

Prints COUNT (default 15) tests, slowest first, with their seconds and share of the run. In a
parallel run a test's time includes the time it waited for a core, so read it as where the
run's wall time went, not as the test's own cost.
"""
import sys
import xml.etree.ElementTree as ElementTree


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: Scripts/slowest-tests.py FILE.xml [COUNT]")
    path = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 15
    try:
        root = ElementTree.parse(path).getroot()
    except (OSError, ElementTree.ParseError) as error:
        sys.exit(f"slowest-tests: {path}: {error}")
    total = sum(float(suite.get("time", 0)) for suite in root.iter("testsuite"))
    cases = [
        (float(case.get("time", 0)), f"{case.get('classname')}.{case.get('name')}")
        for case in root.iter("testcase")
    ]
    cases.sort(reverse=True)
    print(f"slowest {min(count, len(cases))} of {len(cases)} tests (run: {total:.0f} s):")
    for seconds, name in cases[:count]:
        share = f"{100 * seconds / total:.0f}%" if total else "-"
        print(f"  {seconds:8.1f} s  {share:>4}  {name}")


if __name__ == "__main__":
    main()
