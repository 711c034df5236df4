#!/usr/bin/env python3
"""Checks the generated documentation site (Scripts/build-docs.sh) the way a reader meets it.

1. Every internal link: each page's data file names the pages it links to (its "references"); every such page must
   exist in the site. Together with DocC's own link resolution (warnings are errors in the build) no internal link
   is broken.
2. In a real browser: the site is served on loopback and headless Chromium (Debian's `chromium`, installed with
   apt-get if missing) renders the landing pages, the articles and a sample of operator pages; each must show its
   title once JavaScript has run, and a screenshot of each is saved under the site's folder for a person to look at.

Usage: Scripts/check-docs-site.py <site-folder>     (exit status 0 only when every check passes)
"""
import functools
import html
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading

# Pages under /documentation/ rendered in the browser; each must show the title its data file gives.
PAGES = [
    "untangle",
    "untangleextras",
    "untangletesting",
    "untanglesync",
    "untangle/threadsafety",
    "untangle/schedulers",
    "untangleextras/migratingfromrxswift",
    "untangletesting/testing",
    "untanglesync/fromgcd",
    "untangle/publishers/map",
    "untangle/publishers/flatmap",
    "untangle/publishers/buffer",
    "untangle/passthroughsubject",
    "untangle/subscribers/sink",
    "untangleextras/cancelbag",
    "untangletesting/publisherverifier",
    "untanglesync/lock",
]

# The linter's rule pages: a separate article-only archive in <site>/lint (Scripts/build-docs.sh), served under /lint.
LINT_PAGES = [
    "untanglelint",
    "untanglelint/rx-disposebag-reassigned-across-threads",
    "untanglelint/sink-retain-cycle",
]


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def visible_text(dom):
    """The page's text as a reader sees it: tags (DocC breaks long names with <wbr>) and entities removed."""
    text = re.sub(r"<[^>]*>", "", dom)
    return html.unescape(text)


def check_links(site):
    data_root = os.path.join(site, "data")
    pages = set()
    for folder, _, files in os.walk(os.path.join(data_root, "documentation")):
        for name in files:
            if name.endswith(".json"):
                pages.add(os.path.relpath(os.path.join(folder, name), data_root)[: -len(".json")].lower())
    broken = []
    for page in sorted(pages):
        with open(os.path.join(data_root, page + ".json")) as f:
            document = json.load(f)
        for reference in document.get("references", {}).values():
            url = reference.get("url", "")
            if reference.get("type") == "link" or not url.startswith("/documentation/"):
                continue
            target = url.split("#", 1)[0].strip("/").lower()
            if target not in pages:
                broken.append("%s -> %s" % (page, url))
    return pages, broken


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    print("installing Debian's chromium (apt-get)...", flush=True)
    subprocess.run(["apt-get", "update", "-qq"], check=True)
    subprocess.run(["apt-get", "install", "-y", "-qq", "chromium"], check=True,
                   env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))
    return shutil.which("chromium")


def render(chromium, url, screenshot, profile):
    common = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              "--user-data-dir=" + profile, "--virtual-time-budget=15000", "--window-size=1280,1600"]
    dom = subprocess.run(common + ["--dump-dom", url], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         timeout=180, text=True).stdout
    subprocess.run(common + ["--screenshot=" + screenshot, url], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, timeout=180)
    return dom


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    site = os.path.abspath(sys.argv[1])
    failures = []

    pages, broken = check_links(site)
    print("links: %d pages, %d broken internal links" % (len(pages), len(broken)))
    failures += ["broken link: " + item for item in broken]
    lint_pages, lint_broken = check_links(os.path.join(site, "lint"))
    print("linter pages: %d pages, %d broken internal links" % (len(lint_pages), len(lint_broken)))
    failures += ["broken link in lint/: " + item for item in lint_broken]

    chromium = find_chromium()
    handler = functools.partial(QuietHandler, directory=site)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    shots = os.path.join(site, "screenshots")
    os.makedirs(shots, exist_ok=True)
    profile = tempfile.mkdtemp(prefix="docs-chromium-")
    try:
        checks = [("", path, pages) for path in PAGES] + [("lint/", path, lint_pages) for path in LINT_PAGES]
        for prefix, path, known in checks:
            if "documentation/" + path not in known:
                failures.append("missing page: /%sdocumentation/%s" % (prefix, path))
                continue
            with open(os.path.join(site, prefix, "data", "documentation", path + ".json")) as f:
                title = json.load(f)["metadata"]["title"]
            url = "http://127.0.0.1:%d/%sdocumentation/%s/" % (server.server_address[1], prefix, path)
            shot = os.path.join(shots, (prefix + path).replace("/", "_") + ".png")
            dom = render(chromium, url, shot, profile)
            headings = [visible_text(h).strip() for h in re.findall(r"<h1[^>]*>(.*?)</h1>", dom, re.S)]
            rendered = title in headings
            print("%-40s %s" % (path, ("rendered: " + title) if rendered else "NOT RENDERED"))
            if not rendered:
                failures.append("page /documentation/%s does not show its title %r" % (path, title))
            if not os.path.exists(shot):
                failures.append("no screenshot for /documentation/%s" % path)
    finally:
        server.shutdown()
        shutil.rmtree(profile, ignore_errors=True)
    print("screenshots: %s" % shots)
    for failure in failures:
        print("FAIL " + failure)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
