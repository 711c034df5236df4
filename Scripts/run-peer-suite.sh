#!/usr/bin/env bash
# Runs a peer's test suite, CombineX's (https://github.com/cx-org/CombineX, Quick/Nimble specs written to pass against
# Apple's Combine), against Untangle: `import Untangle` stands in for `import Combine`.
#
#   Scripts/run-peer-suite.sh COMBINEX_MIRROR
#
# COMBINEX_MIRROR is a bare git mirror of cx-org/CombineX (as the search tool's `fetch` lays it down). Its two git
# submodules, cx-org/CXTest (the tracing subscriber, virtual-time scheduler) and cx-org/CXShim (the `.cx` namespace),
# come from mirrors beside it (../cx-org+CXTest/repo, ../cx-org+CXShim/repo) or from $CXTEST_MIRROR and
# $CXSHIM_MIRROR, each at the commit CombineX pins. Nothing fetched is committed to this repository: the script
# assembles a throwaway package in a temporary folder ($PEER_WORKDIR to choose it and keep it between runs) whose
# executable runs the specs with Quick's QCKMain (Linux has no Objective-C test discovery). Quick 7 and Nimble 13
# come from the machine's package mirrors, Untangle from this checkout, by path.
#
# What the script changes in the peer's files, and why:
#   - the specs' `override func spec()` becomes `override class func spec()` (Quick 7's signature);
#   - CombineX's `VersioningExpectation.swift` needs the Semver package (not available here) to pick the predicate
#     for the running OS's Combine; it is replaced by a file that always picks the newest Combine's predicate;
#   - the shim module (_CXShim) re-exports Untangle and CXShim's CXCompatible (the `.cx` namespace for Combine), and
#     every target is compiled with USE_COMBINE: the specs then expect Apple's behaviour, as they do on a Mac;
#   - CombineX compiles its `throwAssertion` examples only on Darwin (`#if arch(x86_64) && canImport(Darwin)`);
#     Nimble catches a trap on Linux too, so the condition becomes `#if arch(x86_64)`;
#   - Nimble 13 spells `Predicate` `Matcher` (and Foundation's own `Predicate` makes the old name ambiguous), its
#     `Expectation` is a protocol (`SyncExpectation` is the type CombineX's extensions mean);
#   - the specs of Apple-only Foundation API (KVO) and the one that calls the network are left out: see EXCLUDED.
#
# Last line: `peer-suite: P passed, F failed` (Quick's pending examples count as passed, as XCTest reports them); the
# failing examples are listed above it.
#
# Not run by CI (it needs the fetched mirrors). The counts and the triage of each failure are in
# Sources/Untangle/Untangle.docc/Compatibility.md, "A peer suite: CombineX".
set -euo pipefail

if [[ $# -ne 1 ]]; then
    echo "usage: $0 COMBINEX_MIRROR" >&2
    exit 2
fi
combinex_mirror=$(cd "$1" && pwd)
mirrors=$(dirname "$(dirname "$combinex_mirror")")
cxtest_mirror=${CXTEST_MIRROR:-$mirrors/cx-org+CXTest/repo}
cxshim_mirror=${CXSHIM_MIRROR:-$mirrors/cx-org+CXShim/repo}
untangle=$(cd "$(dirname "$0")/.." && pwd)
# SwiftPM names a package depended on by path after its folder.
untangle_identity=$(basename "$untangle" | tr '[:upper:]' '[:lower:]')
work=${PEER_WORKDIR:-$(mktemp -d)}
mkdir -p "$work"
work=$(cd "$work" && pwd)

# Specs left out, with the reason (file paths inside CombineX's Tests/).
EXCLUDED=(
    # NSObject key-value observing publishers: Objective-C runtime, Apple platforms only.
    "CXFoundationTests/KeyValueObservingSpec.swift"
    # Calls a URL on the internet; the machine has no network.
    "CXFoundationTests/URLSessionSpec.swift"
)

src=$work/src
rm -rf "$src" "$work/pkg/Sources"
mkdir -p "$src/CombineX" "$src/CXTest" "$src/CXShim"
git --git-dir="$combinex_mirror" archive HEAD | tar -x -C "$src/CombineX"
pinned() { git --git-dir="$combinex_mirror" ls-tree HEAD "$1" | awk '{print $3}'; }
git --git-dir="$cxtest_mirror" archive "$(pinned CXTest)" | tar -x -C "$src/CXTest"
git --git-dir="$cxshim_mirror" archive "$(pinned CXShim)" | tar -x -C "$src/CXShim"
combinex_commit=$(git --git-dir="$combinex_mirror" rev-parse HEAD)

pkg=$work/pkg
mkdir -p "$pkg/Sources/PeerSuite"
targets=(CombineXTests CXFoundationTests CXInconsistentTests)
cp -R "$src/CXShim/Sources/CXCompatible" "$pkg/Sources/_CXCompatible"
cp -R "$src/CXTest/Sources/CXTest" "$pkg/Sources/_CXTest"
cp -R "$src/CombineX/Sources/CXUtility" "$pkg/Sources/CXUtility"
cp -R "$src/CombineX/Sources/CXTestUtility" "$pkg/Sources/CXTestUtility"
mkdir -p "$pkg/Sources/_CXShim"
cat >"$pkg/Sources/_CXShim/Shim.swift" <<'EOF'
// The peer's shim: Untangle in Combine's place, with CXShim's `.cx` namespace for Combine. On Linux, Foundation's
// schedulers are not NSObject subclasses CXShim's conformances reach (or are subclasses the protocol's `Self`
// requirement excludes), so each gets its `.cx`, itself, here.
@_exported import Untangle
@_exported import _CXCompatible
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension DispatchQueue {
    public var cx: DispatchQueue { self }
    public var base: DispatchQueue { self }
}
extension OperationQueue { public var cx: OperationQueue { self } }
extension RunLoop { public var cx: RunLoop { self } }
extension NotificationCenter { public var cx: NotificationCenter { self } }
extension URLSession { public var cx: URLSession { self } }
EOF

cat >"$pkg/Sources/CXTestUtility/Inconsistent/VersioningExpectation.swift" <<'EOF'
import Foundation
import Nimble
import Quick

// Untangle follows the newest Combine: of the predicates a spec gives per Xcode release, the newest one applies.
public enum XcodeVersion: Int, Comparable, Hashable {
    case v11_0, v11_1, v11_2, v11_3, v11_4, v11_5, v11_6, v11_7, v12_2
    public static let v12_0 = XcodeVersion.v12_2
    public static func < (lhs: XcodeVersion, rhs: XcodeVersion) -> Bool { lhs.rawValue < rhs.rawValue }
}

public extension SyncExpectation {
    func to(_ predicate: Matcher<Value>, minimalVersion: XcodeVersion, description: String? = nil) {
        to(predicate, description: description)
    }

    func toVersioning(_ predicates: [XcodeVersion: Matcher<Value>], description: String? = nil) {
        let newest = predicates.keys.max()!
        to(predicates[newest]!, description: description)
    }
}

extension SyncDSLUser {
    public static func context(minimalVersion: XcodeVersion, closure: () -> Void) {
        context("needs Combine as of Xcode \(minimalVersion)", closure: closure)
    }
}
EOF
# Nimble 13 names Predicate Matcher (Foundation's Predicate makes the old name ambiguous) and Expectation a protocol.
find "$pkg/Sources/CXTestUtility" -name '*.swift' -exec sed -i -e 's/\bPredicate\b/Matcher/g' \
    -e 's/PredicateStatus/MatcherStatus/g' -e 's/PredicateResult/MatcherResult/g' {} +
sed -i -e 's/extension Expectation\b/extension SyncExpectation/' -e 's/Matcher<T>/Matcher<Value>/g' \
    "$pkg/Sources/CXTestUtility/Inconsistent/BranchExpectation.swift"
# Nimble 13's beIdenticalTo is a Matcher<AnyObject>; the peer's negation has to match it.
sed -i 's/beNotIdenticalTo(_ expected: Any?) -> Matcher<Any>/beNotIdenticalTo(_ expected: Any?) -> Matcher<AnyObject>/' \
    "$pkg/Sources/CXTestUtility/Predicate.swift"

specs=()
for target in "${targets[@]}"; do
    while IFS= read -r -d '' file; do
        relative=${file#"$src/CombineX/Tests/"}
        skip=no
        for excluded in "${EXCLUDED[@]}"; do [[ $relative == "$excluded" ]] && skip=yes; done
        [[ $skip == yes ]] && continue
        destination=$pkg/Sources/$relative
        mkdir -p "$(dirname "$destination")"
        [[ $relative == */LinuxMain.swift ]] && continue
        sed -e 's/override func spec()/override class func spec()/' \
            -e 's/#if arch(x86_64) && canImport(Darwin)/#if arch(x86_64)/' "$file" >"$destination"
        specs+=($(sed -n 's/^ *\(final \)\{0,1\}class \([A-Za-z0-9_]*\): QuickSpec.*/\2/p' "$file"))
    done < <(find "$src/CombineX/Tests/$target" -name '*.swift' -print0 | sort -z)
done

{
    echo "// The peer suite's entry point: Quick's QCKMain over every spec (CombineX $combinex_commit)."
    echo "import Quick"
    for target in "${targets[@]}"; do echo "@testable import $target"; done
    echo "QCKMain(["
    for spec in "${specs[@]}"; do echo "    $spec.self,"; done
    echo "])"
} >"$pkg/Sources/PeerSuite/main.swift"

cat >"$pkg/Package.swift" <<EOF
// swift-tools-version:6.0
import PackageDescription

let combine: [SwiftSetting] = [.define("USE_COMBINE"), .define("CX_PRIVATE_SHIM")]
let package = Package(
    name: "PeerSuite",
    dependencies: [
        .package(path: "$untangle"),
        .package(url: "https://github.com/Quick/Quick.git", from: "7.6.2"),
        .package(url: "https://github.com/Quick/Nimble.git", from: "13.8.0"),
    ],
    targets: [
        .target(name: "_CXCompatible"),
        .target(
            name: "_CXShim", dependencies: [.product(name: "Untangle", package: "$untangle_identity"), "_CXCompatible"],
            swiftSettings: combine),
        .target(name: "_CXTest", dependencies: ["_CXShim"], swiftSettings: combine),
        .target(name: "CXUtility"),
        .target(
            name: "CXTestUtility", dependencies: ["CXUtility", "_CXShim", "_CXTest", "Quick", "Nimble"],
            swiftSettings: combine),
        .target(
            name: "CombineXTests", dependencies: ["CXTestUtility", "CXUtility", "Quick", "Nimble"],
            swiftSettings: combine),
        .target(name: "CXFoundationTests", dependencies: ["CXTestUtility", "Quick", "Nimble"], swiftSettings: combine),
        .target(
            name: "CXInconsistentTests", dependencies: ["CXTestUtility", "CXUtility", "Quick", "Nimble"],
            swiftSettings: combine),
        .executableTarget(
            name: "PeerSuite", dependencies: ["CombineXTests", "CXFoundationTests", "CXInconsistentTests", "Quick"]),
    ],
    swiftLanguageModes: [.v5]
)
EOF
echo "CombineX $combinex_commit; package in $pkg" >&2
swift build --package-path "$pkg" --product PeerSuite
log=$work/peer-suite.log
set +e
"$pkg/.build/debug/PeerSuite" >"$log" 2>&1
status=$?
set -e
grep -E '^/.*: error: ' "$log" | sed -e "s|^$pkg/Sources/||" || true
passed=$(grep -cE "^Test Case '.*' passed \(" "$log")
failed=$(grep -cE "^Test Case '.*' failed \(" "$log")
echo "full log: $log"
echo "peer-suite: $passed passed, $failed failed"
exit $status
