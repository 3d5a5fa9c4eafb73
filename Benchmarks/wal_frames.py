#!/usr/bin/env python3
"""SQLite's WAL writes in an strace log, per miss and per transaction (issue 30).

Reads `strace -f -y -xx -s 24 -e trace=pwrite64` output: each WAL frame is a 24-byte header
(page number, then the database's size in pages, non-zero on a transaction's last frame) and
the page; the checkpoint writes pages into the database file itself.

Usage: wal_frames.py STRACE_LOG SEARCHES
"""

import collections
import re
import sys

CALL = re.compile(r'^\d+\s+pwrite64\(\d+<([^>]*)>, "([^"]*)"(?:\.\.\.)?, (\d+), \d+\) = \d+')


def unhex(text):
    """The bytes of strace's \\xNN escapes."""
    return bytes(int(pair, 16) for pair in text.split("\\x")[1:])


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: wal_frames.py STRACE_LOG SEARCHES")
    log, searches = sys.argv[1], int(sys.argv[2]) if sys.argv[2].isdigit() else 0
    if searches <= 0:
        sys.exit("SEARCHES must be a positive number")
    transactions = []  # the pages of each committed transaction, in order
    pages = []
    checkpointed = 0
    with open(log, encoding="utf-8", errors="replace") as lines:
        for line in lines:
            match = CALL.match(line)
            if not match:
                continue
            path, data, size = unhex(match.group(1)), unhex(match.group(2)), int(match.group(3))
            if path.endswith((b"-shm", b"-journal")):
                continue
            if not path.endswith(b"-wal"):
                checkpointed += 1  # a page the checkpoint copies into the database file
            elif size == 24 and len(data) >= 8:
                pages.append(int.from_bytes(data[0:4], "big"))
                if int.from_bytes(data[4:8], "big"):
                    transactions.append(pages)
                    pages = []
    frames = sum(len(t) for t in transactions)
    print(f"WAL writes per search ({searches} searches, strace):")
    print(f"  transactions       {len(transactions) / searches:7.2f}")
    print(f"  frames             {frames / searches:7.2f}")
    print(f"  checkpoint pages   {checkpointed / searches:7.2f}  (written into the database file)")
    print("  frames a transaction, how often:")
    for size, count in sorted(collections.Counter(len(t) for t in transactions).items()):
        print(f"    {size:3d} frames  {count:5d}")


if __name__ == "__main__":
    main()
