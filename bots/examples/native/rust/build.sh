#!/bin/sh
# Build the bot as one static Linux x86-64 executable with cargo (no crates: offline), and
# bot.zip to upload. Usage: ./build.sh [OUT_DIR]  (default: target/); prints the zip's path.
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-${here}/target}"
cd "${here}"
CARGO_TARGET_DIR="${out}" cargo build --release --quiet --offline --target x86_64-unknown-linux-gnu
cp "${out}/x86_64-unknown-linux-gnu/release/main" "${out}/main"
cd "${out}" && rm -f bot.zip && python3 -c "import zipfile; z = zipfile.ZipFile('bot.zip', 'w', zipfile.ZIP_DEFLATED); z.write('main')"
echo "${out}/bot.zip"
