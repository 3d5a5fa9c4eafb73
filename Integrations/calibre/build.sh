#!/usr/bin/env bash
# Builds the calibre plugin "Seek" as a zip that `calibre-customize -a OUT.zip` installs
# (or calibre's Preferences → Plugins → Load plugin from file).
# Usage: bash Integrations/calibre/build.sh OUT.zip
set -euo pipefail
out="${1:?usage: $0 OUT.zip}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
cp "$here/seek/__init__.py" "$here/seek/seek_client.py" "$stage/"
# Several files: calibre imports them as calibre_plugins.seek.<module>.
: > "$stage/plugin-import-name-seek.txt"
rm -f "$out"
python3 - "$stage" "$out" <<'PY'
import os, sys, zipfile
stage, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
    for name in sorted(os.listdir(stage)):
        archive.write(os.path.join(stage, name), name)
PY
echo "$out"
