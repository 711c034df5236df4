#!/usr/bin/env python3
"""Compares Untangle's public API with Apple Combine's documented public API.

Reads `apple-combine-api.txt` (Apple's symbols, one a line, written from Apple's documentation pages) and the symbol
graph of the Untangle module, and prints every Apple symbol Untangle lacks. Exits 1 when one of them is not listed
with its reason in `exceptions.txt`, 0 otherwise (2 on a usage error).

A line of `apple-combine-api.txt` is one of:

    Type                                   the type (struct, class, enum, protocol, typealias) exists
    Type.member(label:other:)              a member of that name and labels exists on the type, declared there or
                                           inherited from a protocol extension (what a caller can write)
    Type.member(label:) -> ReturnType      ... and one overload of it returns ReturnType (the overloads that differ
                                           only by constraints and return type, e.g. flatMap's four)
    Type: Protocol                         the type conforms to the protocol (conditionally or not)
    Type.property { set }                  the property is settable (a stored `var`, or `{ get set }`)

Type paths are Swift's (`Publishers.Map`, `DispatchQueue.SchedulerTimeType.Stride`, `Optional.Publisher`), operators
are written `Subscribers.Demand.+(_:_:)`. Return types are compared after removing spaces, `Self.`, `Swift.` and
`any `; a one- or two-character generic parameter name (P, T, T0) compares as a placeholder.

Usage:
    python3 Scripts/combine-api/check-api-parity.py --build            # builds the symbol graph, then checks
    python3 Scripts/combine-api/check-api-parity.py --symbol-graph-dir DIR
Options: --scratch-path PATH (default .build-api-parity), --verbose (also lists the symbols found).
"""

import argparse
import glob
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def normalize_type(text):
    text = text.replace("any ", "")
    text = re.sub(r"\s+", "", text)
    text = re.sub(r"\bSelf\.", "", text)
    text = re.sub(r"\bSwift\.", "", text)
    text = re.sub(r"\bUntangle\.", "", text)
    # Apple's pages spell a few concrete types through an alias; Untangle spells the type itself.
    text = text.replace("Just<Output>.Failure", "Never")
    # A publisher's Output spelled through the publisher type (Apple's pages) or resolved (the symbol graph).
    text = text.replace("Publishers.Sequence<Elements,Failure>.Output", "Elements.Element")
    text = text.replace("Optional<Wrapped>.Publisher.Output", "Wrapped")
    text = text.replace("Result<Success,Failure>.Publisher.Output", "Success")
    # Generic parameter names are the declaration's own choice (Apple's `merge<P>(with: P)`, Untangle's `<B>`): a
    # one- or two-character capitalized name (P, T, S, E, T0, PC) compares as a placeholder.
    text = re.sub(r"\b[A-Z][A-Z0-9]?\b", "_", text)
    return text


def simple_type_name(identifier):
    """`s:20FoundationEssentials11JSONEncoderC` -> `JSONEncoder`: a top-level type's mangled name, read plainly."""
    match = re.fullmatch(r"s:(\d+)(\w+)", identifier)
    if not match:
        return None
    rest = identifier[2:]
    names = []
    while rest and rest[0].isdigit():
        length = re.match(r"\d+", rest).group(0)
        start = len(length)
        names.append(rest[start:start + int(length)])
        rest = rest[start + int(length):]
    if len(names) == 2 and rest in ("C", "V", "O", "P"):
        return names[1]
    return None


def read_list(path):
    entries = []
    with open(path, encoding="utf-8") as handle:
        for number, raw in enumerate(handle, 1):
            line = raw.split("#", 1)[0].strip() if not raw.lstrip().startswith("#") else ""
            if line:
                entries.append((number, line))
    return entries


def read_exceptions(path):
    exceptions = {}
    if not os.path.exists(path):
        return exceptions
    with open(path, encoding="utf-8") as handle:
        for raw in handle:
            if raw.lstrip().startswith("#") or not raw.strip():
                continue
            if "|" not in raw:
                sys.exit(f"exceptions.txt: no reason given (`symbol | reason`): {raw.strip()}")
            symbol, reason = (part.strip() for part in raw.split("|", 1))
            if not reason:
                sys.exit(f"exceptions.txt: empty reason for {symbol}")
            exceptions[symbol] = reason
    return exceptions


def build_symbol_graph(scratch):
    out_dir = os.path.join(scratch, "symbol-graph")
    os.makedirs(out_dir, exist_ok=True)
    command = [
        "swift", "build", "--target", "Untangle", "--scratch-path", scratch,
        "-Xswiftc", "-emit-symbol-graph", "-Xswiftc", "-emit-symbol-graph-dir", "-Xswiftc", out_dir,
    ]
    print("+", " ".join(command), file=sys.stderr)
    subprocess.run(command, cwd=ROOT, check=True)
    return out_dir


def load_untangle(directory):
    """Returns (paths, returns, conformances, settable): the symbol paths, each path's return types, each type's
    protocols, and the properties a caller can assign."""
    files = [f for f in glob.glob(os.path.join(directory, "Untangle*.symbols.json"))
             if os.path.basename(f).split("@")[0].split(".")[0] == "Untangle"]
    if not files:
        sys.exit(f"no Untangle*.symbols.json in {directory}")
    by_id = {}
    relationships = []
    for path in files:
        with open(path, encoding="utf-8") as handle:
            graph = json.load(handle)
        for symbol in graph["symbols"]:
            if symbol.get("accessLevel") not in ("public", "open"):
                continue
            by_id[symbol["identifier"]["precise"]] = symbol
        relationships.extend(graph.get("relationships", []))

    paths = set()
    returns = {}
    settable = set()
    for symbol in by_id.values():
        components = symbol["pathComponents"]
        if any(c.startswith("_") for c in components):
            continue
        key = ".".join(components)
        paths.add(key)
        signature = symbol.get("functionSignature")
        if signature is not None:
            spelled = "".join(f.get("spelling", "") for f in signature.get("returns", []))
            returns.setdefault(key, set()).add(normalize_type(spelled))
        if symbol["kind"]["identifier"] in ("swift.property", "swift.type.property"):
            fragments = symbol.get("declarationFragments", [])
            text = "".join(f.get("spelling", "") for f in fragments)
            if ":" in text:
                returns.setdefault(key, set()).add(normalize_type(text.split(":", 1)[1].split("{")[0]))
            accessors = text.split("{", 1)[1] if "{" in text else ""
            if text.startswith("var ") and (not accessors or "set" in accessors):
                settable.add(key)

    def name_of(identifier, fallback):
        symbol = by_id.get(identifier)
        if symbol is not None:
            return ".".join(symbol["pathComponents"])
        if fallback:
            return re.sub(r"^(Swift|Foundation|Dispatch|Untangle)\.", "", fallback)
        simple = simple_type_name(identifier)
        if simple:
            return simple
        # A type of another module that Untangle extends (DispatchQueue) has no symbol of its own: its name is the
        # first path component of a member declared in the extension (whose identifier extends the type's).
        for other_id, other in by_id.items():
            if other_id.startswith(identifier) and other_id != identifier:
                return other["pathComponents"][0]
        return None

    conformances = {}
    for relation in relationships:
        if relation["kind"] != "conformsTo":
            continue
        source = name_of(relation["source"], relation.get("sourceFallback"))
        target = name_of(relation["target"], relation.get("targetFallback"))
        if source and target:
            conformances.setdefault(source, set()).add(target.split(".")[-1])
            paths.add(source)
    return paths, returns, conformances, settable


def check(entries, paths, returns, conformances, settable):
    missing = []
    for number, line in entries:
        conformance = re.fullmatch(r"([\w.]+)\s*:\s*([\w.]+)", line)
        if conformance:
            owner, protocol = conformance.groups()
            if protocol.split(".")[-1] not in conformances.get(owner, set()):
                missing.append((number, line))
            continue
        if line.endswith(" { set }"):
            if line[: -len(" { set }")] not in settable:
                missing.append((number, line))
            continue
        if " -> " in line:
            symbol, wanted = (part.strip() for part in line.split(" -> ", 1))
            if symbol not in paths or normalize_type(wanted) not in returns.get(symbol, set()):
                missing.append((number, line))
            continue
        if line not in paths:
            missing.append((number, line))
    return missing


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--symbol-graph-dir")
    parser.add_argument("--build", action="store_true")
    parser.add_argument("--scratch-path", default=os.path.join(ROOT, ".build-api-parity"))
    parser.add_argument("--apple-list", default=os.path.join(HERE, "apple-combine-api.txt"))
    parser.add_argument("--exceptions", default=os.path.join(HERE, "exceptions.txt"))
    parser.add_argument("--verbose", action="store_true")
    arguments = parser.parse_args()
    if bool(arguments.symbol_graph_dir) == arguments.build:
        parser.print_usage(sys.stderr)
        print("give exactly one of --build and --symbol-graph-dir", file=sys.stderr)
        return 2
    directory = build_symbol_graph(arguments.scratch_path) if arguments.build else arguments.symbol_graph_dir

    entries = read_list(arguments.apple_list)
    exceptions = read_exceptions(arguments.exceptions)
    paths, returns, conformances, settable = load_untangle(directory)
    missing = check(entries, paths, returns, conformances, settable)

    listed = {line for _, line in entries}
    stale = sorted(symbol for symbol in exceptions if symbol not in listed)
    unexplained = [(n, line) for n, line in missing if line not in exceptions]
    explained = [(n, line) for n, line in missing if line in exceptions]
    resolved = sorted(symbol for symbol in exceptions if symbol in listed and symbol not in {l for _, l in missing})

    if arguments.verbose:
        for symbol in sorted(paths):
            print("untangle:", symbol)
    for number, line in explained:
        print(f"excepted  {line}    ({exceptions[line]})")
    for number, line in unexplained:
        print(f"MISSING   {line}    ({os.path.basename(arguments.apple_list)}:{number})")
    for symbol in stale:
        print(f"warning: exceptions.txt lists {symbol}, which apple-combine-api.txt does not")
    for symbol in resolved:
        print(f"warning: exceptions.txt lists {symbol}, which Untangle now has")
    print(f"{len(entries)} Apple symbols; Untangle lacks {len(missing)} "
          f"({len(explained)} explained in exceptions.txt, {len(unexplained)} not)")
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
