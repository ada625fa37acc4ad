#!/usr/bin/env python3
"""Scripts/source-bars.py [FOLDER...]

The size bars the sources keep (issue 60): no Swift file over 600 lines, no function, initializer,
accessor or closure-bodied computed property over 120. Prints each one past its bar, with its
place and length, and exits 1 when there is any; with no folder given, reads Sources/.

Swift is read with a small tokenizer, enough to match braces: string literals (with
interpolation, raw and multi-line ones) and comments are skipped, so a brace inside them does
not count. A declaration's length runs from its `func`/`init` line to its closing brace.
"""

import os
import re
import sys

FILE_BAR = 600
FUNCTION_BAR = 120

DECLARATION = re.compile(
    r"^\s*(?:@[\w.()\"', ]+\s+)*(?:(?:public|internal|package|private|fileprivate|static|class|"
    r"final|override|mutating|nonmutating|nonisolated|convenience|required|dynamic|@\w+)\s+)*"
    r"(func\s+[^\s(<]+|init[?!]?\s*[(<]|deinit\b|subscript\s*[(<]|var\s+\w+\s*:[^=]*\{\s*$)"
)


def skip_string(text, i, line):
    hashes = 0
    while text[i] == "#":
        hashes += 1
        i += 1
    multiline = text.startswith('"""', i)
    i += 3 if multiline else 1
    return read_string_body(text, i, line, hashes, multiline)


def read_string_body(text, i, line, hashes, multiline):
    n = len(text)
    close = ('"""' if multiline else '"') + "#" * hashes
    escape = "\\" + "#" * hashes
    while i < n:
        if text.startswith(escape, i):
            j = i + len(escape)
            if j < n and text[j] == "(":
                # an interpolation: read its code until the matching parenthesis
                i, line = read_interpolation(text, j + 1, line)
                continue
            if j < n and text[j] == "\n":  # a line continued in a multi-line string
                line += 1
            i = j + 1
            continue
        if text.startswith(close, i):
            return i + len(close), line
        if text[i] == "\n":
            line += 1
        i += 1
    return n, line


def read_interpolation(text, i, line):
    """Reads code up to the parenthesis that closes an interpolation; returns past it."""
    depth, n = 1, len(text)
    while i < n and depth:
        c = text[i]
        if c == "\n":
            line += 1
        if c == '"' or (c == "#" and re.match(r'#+"', text[i:])):
            i, line = skip_string(text, i, line)
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        i += 1
    return i, line


def strings_aware_braces(text):
    """Braces outside strings and comments, as (line, char)."""
    out = []
    i, line, n = 0, 1, len(text)
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            nest, i = 1, i + 2
            while i < n and nest:
                if text.startswith("/*", i):
                    nest, i = nest + 1, i + 2
                elif text.startswith("*/", i):
                    nest, i = nest - 1, i + 2
                else:
                    line += text[i] == "\n"
                    i += 1
        elif c == '"' or (c == "#" and re.match(r'#+"', text[i : i + 8])):
            i, line = skip_string(text, i, line)
        else:
            if c in "{}":
                out.append((line, c))
            i += 1
    return out


def long_declarations(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    lines = text.split("\n")
    marks = strings_aware_braces(text)
    # For each line, the first brace that opens on it or after it.
    found = []
    closing = {}
    stack = []
    for index, (line, c) in enumerate(marks):
        if c == "{":
            stack.append((line, index))
        elif stack:
            opened, at = stack.pop()
            closing[at] = line
    opens = [(line, index) for index, (line, c) in enumerate(marks) if c == "{"]
    cursor = 0
    for number, source in enumerate(lines, start=1):
        match = DECLARATION.match(source)
        if not match:
            continue
        while cursor < len(opens) and opens[cursor][0] < number:
            cursor += 1
        if cursor == len(opens):
            break
        opened, index = opens[cursor]
        # A requirement without a body (a protocol's): the next brace belongs to a later
        # declaration, past a blank line or another declaration.
        between = lines[number : opened - 1]
        if any(not l.strip() or DECLARATION.match(l) for l in between):
            continue
        end = closing.get(index)
        if end is None:
            continue
        length = end - number + 1
        if length > FUNCTION_BAR:
            name = match.group(1).strip()
            found.append((number, length, name))
    return len(lines) - (1 if text.endswith("\n") else 0), found


def main():
    folders = sys.argv[1:] or ["Sources"]
    failures = 0
    for folder in folders:
        for root, _, files in sorted(os.walk(folder)):
            for name in sorted(files):
                if not name.endswith(".swift"):
                    continue
                path = os.path.join(root, name)
                count, long = long_declarations(path)
                if count > FILE_BAR:
                    print(f"{path}: {count} lines (the bar is {FILE_BAR})")
                    failures += 1
                for number, length, what in long:
                    print(f"{path}:{number}: {what.rstrip('(<{ ')} is {length} lines (the bar is {FUNCTION_BAR})")
                    failures += 1
    if failures:
        print(f"source-bars: {failures} past the bars", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
