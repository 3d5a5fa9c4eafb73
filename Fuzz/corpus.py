#!/usr/bin/env python3
"""Writes the starting corpus of one fuzz target into a directory (run.sh calls it; nothing is kept).

usage: corpus.py TARGET OUTDIR FIXTURES SEEDS

FIXTURES is ../shared/fixtures (real recorded API answers; it may be absent), SEEDS is Fuzz/Seeds.
Provider targets read their first input byte as a selector (bits 0-1 the call, 2-4 the status, 5-7
the request: see Sources/FuzzSupport), so each answer is written behind the selector of the call it
answers. Each JSON answer goes in twice: as recorded when it is at most 16 KiB, and shrunk (every list
cut to its first two elements, long strings cut) so that most of the corpus is small and fast while
keeping every shape.
"""
import json
import os
import sys

MAX_RECORDED = 16 * 1024


def shrink(value):
    if isinstance(value, list):
        return [shrink(v) for v in value[:2]]
    if isinstance(value, dict):
        return {k: shrink(v) for k, v in value.items()}
    if isinstance(value, str) and len(value) > 160:
        return value[:160]
    return value


def bodies(path):
    """The recorded body (if small enough) and a shrunk copy (if it is JSON)."""
    with open(path, "rb") as f:
        raw = f.read()
    out = []
    if len(raw) <= MAX_RECORDED:
        out.append(("", raw))
    try:
        value = json.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return out
    small = json.dumps(shrink(value), ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    if small != raw:
        out.append((".small", small))
    return out


def fixtures(root, provider):
    folder = os.path.join(root, provider)
    if not os.path.isdir(folder):
        return []
    return sorted(
        os.path.join(folder, name) for name in os.listdir(folder)
        if name.endswith((".json", ".raw")) and os.path.isfile(os.path.join(folder, name)))


def selectors(target, name):
    """The selector bytes a fixture is the body for (status index 0 = 200, request 0 = the default)."""
    error = 0x18 if "429" in name else (0x10 if "404" in name else 0)
    if target == "FuzzOpenLibrary":
        if name.startswith("search") or name.startswith("work_editions") or name.startswith("api_books"):
            return [0x00, 0x43]
        if name.startswith("work") or name.startswith("author"):
            return [0x01]
        if name.startswith("edition"):
            return [0x02]
        return [0x00]
    if target == "FuzzGiphy":
        if name.startswith("search"):
            return [0x00, 0x03, 0x40]
        if name.startswith("trending"):
            return [0x02]
        if name.startswith("random") or name.startswith("synthetic"):
            return [0x01]
        return [0x00 | error, 0x01 | error]
    if target == "FuzzAladin":
        if name.startswith("search"):
            return [0x00, 0x60]
        if name.startswith("list"):
            return [0x02]
        if name.startswith("lookup"):
            return [0x01, 0x03]
        return [0x00, 0x01]
    if target == "FuzzGoogleBooks":
        if name.startswith("search"):
            return [0x00, 0x02, 0x40]
        if name.startswith("volume"):
            return [0x01, 0x03]
        return [0x00 | (error or 0x14), 0x01 | (error or 0x14)]
    if target == "FuzzCrossref":
        if name.startswith("search"):
            return [0x00, 0x02, 0x60]
        if name.startswith("work"):
            return [0x01, 0x03]
        return [0x00 | (error or 0x14), 0x01 | (error or 0x14)]
    if target == "FuzzDeclared":
        if name.startswith("search"):
            return [0x00, 0x02, 0x20]
        if name.startswith("work") or name.startswith("edition"):
            return [0x01]
        return [0x00]
    return [None]


def main():
    target, outdir, fixture_root, seeds_root = sys.argv[1:5]
    os.makedirs(outdir, exist_ok=True)
    providers = {
        "FuzzJSON": ["openlibrary", "giphy", "aladin"],
        "FuzzOpenLibrary": ["openlibrary"],
        "FuzzGiphy": ["giphy"],
        "FuzzAladin": ["aladin"],
        "FuzzGoogleBooks": ["googlebooks"],
        "FuzzCrossref": ["crossref"],
        "FuzzDeclared": ["openlibrary"],
    }.get(target, [])
    written = 0
    for provider in providers:
        for path in fixtures(fixture_root, provider):
            base = os.path.splitext(os.path.basename(path))[0]
            # The declared target's second declaration reads GIPHY's shape (selector bit 0-1 = 3).
            for suffix, body in bodies(path):
                for selector in selectors(target, os.path.basename(path)):
                    prefix = b"" if selector is None else bytes([selector])
                    name = f"{provider}-{base}{suffix}" + ("" if selector is None else f"-{selector:02x}")
                    with open(os.path.join(outdir, name), "wb") as f:
                        f.write(prefix + body)
                    written += 1
    if target == "FuzzDeclared":
        for path in fixtures(fixture_root, "giphy"):
            if os.path.basename(path).startswith("search"):
                for suffix, body in bodies(path):
                    name = f"giphy-{os.path.splitext(os.path.basename(path))[0]}{suffix}-03"
                    with open(os.path.join(outdir, name), "wb") as f:
                        f.write(b"\x03" + body)
                    written += 1
    # Hand-written seeds: Seeds/<target without "Fuzz", lowercased>/, as they are.
    own = os.path.join(seeds_root, target[len("Fuzz"):].lower())
    if os.path.isdir(own):
        for name in sorted(os.listdir(own)):
            with open(os.path.join(own, name), "rb") as f:
                body = f.read()
            with open(os.path.join(outdir, "seed-" + name), "wb") as f:
                f.write(body)
            written += 1
    if written == 0:
        # libFuzzer starts from an empty input when the corpus is empty; say so.
        print(f"note: no seeds for {target} (is ../shared/fixtures absent?)", file=sys.stderr)
    print(written)


if __name__ == "__main__":
    main()
