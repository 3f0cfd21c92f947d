#!/usr/bin/env bash
# A scheduled batch loader for topicgate: copy it, point it at your gateway, run it from cron.
#
#   TOPICGATE=http://127.0.0.1:3000 CURSOR=orders-loader TOPIC=orders OUT=./landing ./batch-loader.sh
#   FORMAT=parquet ... ./batch-loader.sh     # land Parquet files (<name>.parquet) instead of Arrow (<name>.arrow)
#
# Each run takes what is new since the last committed batch, lands every batch as one Arrow (or Parquet) file
# named by its batch token, then commits it. The gateway keeps the position, so the loader keeps no state. If the
# loader dies anywhere (before landing, after landing, during the commit), the next run reads the same uncommitted
# batch again: same rows, same token, so the same file name, and landing it twice overwrites it with the same bytes.
set -euo pipefail

api=${TOPICGATE:-http://127.0.0.1:3000}
cursor=${CURSOR:?set CURSOR to the cursor name}
out=${OUT:-./landing}
limit=${LIMIT:-100000}
format=${FORMAT:-arrow}
case "$format" in
  arrow | parquet) ;;
  *) echo "FORMAT must be arrow or parquet, not $format" >&2 && exit 2 ;;
esac
mkdir -p "$out"

# Create the cursor on the first run (the same definition again is a no-op; another one is a 409).
if [ -n "${TOPIC:-}" ]; then
  curl -sS --fail-with-body -X PUT -H 'content-type: application/json' \
    -d "{\"topic\":\"$TOPIC\",\"start\":\"${START:-earliest}\",\"settle\":\"${SETTLE:-30s}\"}" \
    "$api/v1/cursors/$cursor" >/dev/null
fi

headers=$(mktemp)
trap 'rm -f "$headers" "$out"/.batch.*' EXIT
while :; do
  body=$(mktemp "$out/.batch.XXXXXX")
  # --fail-with-body: an HTTP error stops the run; a cut stream too (the gateway aborts the transfer of a cut
  # response in every format: curl exits 18), so a partial batch never lands (a cut Parquet body also lacks its
  # footer, so no reader would open it).
  curl -sS --fail-with-body -X POST -D "$headers" -o "$body" "$api/v1/cursors/$cursor/read?format=$format&limit=$limit"
  token=$(sed -n 's/^[Tt]opicgate-[Bb]atch: *//p' "$headers" | tr -d '\r')
  rows=$(sed -n 's/^[Tt]opicgate-[Bb]atch-[Rr]ows: *//p' "$headers" | tr -d '\r')
  if [ "${rows:-0}" = 0 ]; then
    rm -f "$body"
    break
  fi
  name=$(printf '%s' "$token" | sha256sum | cut -c1-32)
  mv -f "$body" "$out/$name.$format" # rename: the file appears whole or not at all
  curl -sS --fail-with-body -X POST -H 'content-type: application/json' \
    -d "{\"batch\":\"$token\"}" "$api/v1/cursors/$cursor/commit" >/dev/null
  echo "landed $rows events in $out/$name.$format"
done
