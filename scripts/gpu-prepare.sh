#!/usr/bin/env bash
# Run HERE before a run on the GPU machine: builds the release binary and every test executable, strips them
# into .gpu/bin (ignored by git, carried to the device), and unpacks the validation layers into .gpu/vvl.
# The GPU machine has no Rust toolchain and no network; see ../shared/device/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .gpu/bin
rm -f .gpu/bin/*
cargo build --release --bin vksort
cp target/release/vksort .gpu/bin/
cargo test --release --no-run --message-format=json 2>/dev/null \
  | python3 -c 'import sys, json
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["kind"] != ["bin"]:
        print(m["target"]["name"], m["executable"])' \
  | while read -r name exe; do cp "$exe" ".gpu/bin/test-$name"; done
strip .gpu/bin/*
if [ ! -d .gpu/vvl ]; then
  (cd .gpu && apt-get download vulkan-validationlayers >/dev/null 2>&1 || true)
  dpkg -x .gpu/vulkan-validationlayers_*.deb .gpu/vvl
fi
du -sh .gpu/bin .gpu/vvl
