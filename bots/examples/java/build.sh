#!/bin/sh
# Build bot.jar from src/ with the JDK (javac and jar: apt-get install default-jdk-headless).
# Usage: ./build.sh [OUT_DIR]   (default: build/); prints the jar's path.
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-${here}/build}"
mkdir -p "${out}/classes"
javac --release 17 -encoding UTF-8 -d "${out}/classes" "${here}"/src/*.java
jar --create --file "${out}/bot.jar" --main-class Main -C "${out}/classes" .
echo "${out}/bot.jar"
