#!/usr/bin/env bash
# Lints pipelinehttp/openapi.yaml with Redocly CLI (recommended rules) and
# Spectral (spectral:oas) at the versions locked here, installed in a
# temporary directory, and fails unless their problems are exactly the
# explained warnings of expected-problems.txt. Needs Node.js 20.19 or later.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
doc="$here/../openapi.yaml"

if ! node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 20 || (a === 20 && b >= 19) ? 0 : 1)'; then
  echo "OpenAPI lint: Redocly CLI needs Node.js 20.19 or later; this machine has $(node --version)" >&2
  exit 1
fi
work=$(mktemp -d /tmp/pipeline-openapi-lint.XXXXXX)
trap 'rm -rf "$work"' EXIT
cp "$here/package.json" "$here/package-lock.json" "$work"
(cd "$work" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
bin="$work/node_modules/.bin"

# Both exit non-zero on errors; the comparison below reports them.
REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true "$bin/redocly" lint \
  --config "$here/redocly.yaml" --format=json "$doc" >"$work/redocly.json" || true
"$bin/spectral" lint --ruleset "$here/spectral.yaml" -f json -o "$work/spectral.json" "$doc" || true
node "$here/problems.mjs" "$work/redocly.json" "$work/spectral.json" >"$work/problems.txt"

echo "OpenAPI lint (Redocly $("$bin/redocly" --version 2>/dev/null), Spectral $("$bin/spectral" --version)):"
sed 's/^/  /' "$work/problems.txt"
if ! diff -u "$here/expected-problems.txt" "$work/problems.txt"; then
  echo "OpenAPI lint: problems other than the explained warnings of pipelinehttp/lint/expected-problems.txt" >&2
  exit 1
fi
