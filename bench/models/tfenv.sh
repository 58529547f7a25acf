#!/usr/bin/env bash
# Runs a command with a chosen transformers version.
#   bench/models/tfenv.sh 4.52.4 .venv/bin/python bench/models/survey.py --models phi3
#   bench/models/tfenv.sh 5.23.0 ...   (the venv's own transformers: PYTHONPATH untouched)
# Other versions live in .venv/tf-<version>/ (`make tf4524` creates 4.52.4).
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 VERSION COMMAND [ARGS...]" >&2
  exit 2
fi
version=$1
shift
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
target="$root/.venv/tf-$version"
if [ -d "$target" ]; then
  export PYTHONPATH="$target${PYTHONPATH:+:$PYTHONPATH}"
elif ! "$root/.venv/bin/python" -c "import sys, transformers; sys.exit(transformers.__version__ != '$version')" 2>/dev/null; then
  echo "transformers $version: neither $target nor the venv's own (try: make tf4524)" >&2
  exit 1
fi
exec "$@"
