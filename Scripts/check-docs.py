#!/usr/bin/env python3
"""Checks the house documentation rules on Sources/:

- every `public` (or `open`) declaration has a `///` doc comment right above it (attributes may sit in between);
- every public type (class, struct, enum, protocol, actor) has the house line `**Thread safety:**` in its doc comment,
  and every public stream type (one that is, or conforms to, a publisher, subscriber, subscription or subject) the
  line `**Demand:**` too;
- no doc comment says "**Demand:** not applicable": a type without demand has no Demand line, a function whose
  result is computed at the call says so in its own words.

Members that only satisfy a protocol requirement still need a one-line summary. Exit status 1 lists offenders.
"""
import pathlib
import re
import sys

DECL = re.compile(
    r"^\s*(?:@[\w().:, ]+\s+)*(?:public|open)\s+(?:(?:final|static|class|override|mutating|nonmutating|"
    r"convenience|required|indirect|nonisolated|lazy)\s+)*(class|struct|enum|protocol|actor|func|var|let|init|"
    r"subscript|typealias|case|associatedtype|static)\b")
TYPE_KINDS = {"class", "struct", "enum", "protocol", "actor"}
STREAM = re.compile(r"\b(Publisher|Subscriber|Subscription|Subject|ConnectablePublisher)\b")


def declaration(lines, index):
    """The declaration starting at line `index`, up to its opening brace (at most 6 lines)."""
    text = []
    for line in lines[index:index + 6]:
        text.append(line.split("{", 1)[0])
        if "{" in line:
            break
    return " ".join(text)


def doc_block(lines, index):
    """The `///` lines directly above line `index`, skipping attribute lines and blank-free `//` comments."""
    block = []
    i = index - 1
    while i >= 0:
        stripped = lines[i].strip()
        if stripped.startswith("///"):
            block.append(stripped)
        elif stripped.startswith("@") or (stripped.startswith("//") and not block):
            pass
        else:
            break
        i -= 1
    return list(reversed(block))


def main(root):
    problems = []
    for path in sorted(pathlib.Path(root).rglob("*.swift")):
        if path.parts[1:2] == ("untangle",):
            continue  # the command-line tool is not a library
        lines = path.read_text().splitlines()
        for index, line in enumerate(lines):
            match = DECL.match(line)
            if not match:
                continue
            kind = match.group(1)
            block = doc_block(lines, index)
            where = f"{path}:{index + 1}: {line.strip()[:90]}"
            if not block:
                problems.append(f"{where}\n    missing /// documentation")
                continue
            text = " ".join(block)
            if "**Demand:** not applicable" in text:
                problems.append(f"{where}\n    a \"**Demand:** not applicable\" line: leave the line out")
            if kind in TYPE_KINDS:
                required = ["**Thread safety:**"]
                if STREAM.search(declaration(lines, index)):
                    required.append("**Demand:**")
                for line in required:
                    if line not in text:
                        problems.append(f"{where}\n    public type without a {line} line")
    for problem in problems:
        print(problem)
    print(f"{len(problems)} documentation problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "Sources"))
