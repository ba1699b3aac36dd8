#!/usr/bin/env bash
# Run HERE before a run on the GPU machine: builds the release binary and every test executable of the workspace
# (the library's and tools/'s), strips them
# into .gpu/bin (ignored by git, carried to the device), and unpacks the validation layers into .gpu/vvl; both
# go into .gpu/pack.tar.xz, the one file to carry (scripts/gpu-run.sh unpacks it).
# The GPU machine has no Rust toolchain and no network; see ../shared/device/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .gpu/bin .gl
exclude=$(git rev-parse --git-path info/exclude); mkdir -p "$(dirname "$exclude")"
grep -qx '/.gpu/' "$exclude" 2>/dev/null || echo /.gpu/ >> "$exclude"
# The loader alone is not enough: NVIDIA's ICD (libGLX_nvidia) needs glvnd's libraries too.
if ! ls .gl/libglvnd0_*.deb >/dev/null 2>&1; then
  grep -qx '/.gl/' "$exclude" 2>/dev/null || echo /.gl/ >> "$exclude"
  mkdir -p /tmp/amd64/partial
  o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
  apt-get $o update >/dev/null
  (cd .gl && apt-get $o download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2 >/dev/null 2>&1)
fi
[ -d .device ] || { mkdir -p .device && cp ../shared/device/* .device/; grep -qx '/.device/' "$exclude" || echo /.device/ >> "$exclude"; }
# The Vulkan anchors (vrdx, Fuchsia) travel with the device files when the shared folder has them.
[ -x ../shared/anchors/vulkan/anchor_bench ] && cp ../shared/anchors/vulkan/anchor_bench .device/
# CUB 3.5 (CCCL 3.5.0) is built there from its tarball (gpu-run.sh).
[ -f ../shared/anchors/cccl-3.5.0-rc0.tar.xz ] && cp ../shared/anchors/cccl-3.5.0-rc0.tar.xz .device/
rm -f .gpu/bin/*
cargo build --release -p vksort-tools --bin vksort --examples
cargo build --release -p vksort --features diagnostics,compile-shaders,wgpu --examples
# The C API's example, built here (the GPU machine has no C compiler): test-c_api runs it (VKSORT_C_EXAMPLE).
cargo build --release -p vksort-capi
cc -std=c99 -O2 -Wall -Wextra -Werror -I capi/include examples/c/sort.c target/release/libvksort_c.a \
  -lvulkan -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc -o .gpu/bin/example-c-sort
# The WGSL anchor (the `wgpu_sort` crate; a workspace of its own): skipped with a note when it cannot build.
if (cd tools/anchors/wgpu-sort && cargo build --release --quiet); then
  cp tools/anchors/wgpu-sort/target/release/wgpu-sort-anchor .gpu/bin/
else
  echo "gpu-prepare: the wgpu_sort anchor did not build; gpu-run.sh wgpu goes on without it" >&2
fi
cp target/release/vksort .gpu/bin/
for e in target/release/examples/*; do
  [ -x "$e" ] && [ -f "$e" ] && case "$e" in *-*) ;; *) cp "$e" ".gpu/bin/example-$(basename "$e")" ;; esac
done
cargo test --release --workspace --no-run --message-format=json 2>/dev/null \
  | python3 -c 'import sys, json
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["kind"] == ["test"]:
        print(m["target"]["name"], m["executable"])' \
  | while read -r name exe; do cp "$exe" ".gpu/bin/test-$name"; done
strip .gpu/bin/*
if [ ! -d .gpu/vvl ]; then
  (cd .gpu && apt-get download vulkan-validationlayers >/dev/null 2>&1 || true)
  dpkg -x .gpu/vulkan-validationlayers_*.deb .gpu/vvl
fi
rm -f .gpu/bin/test-vksort
# Every test target of the workspace travels (tests/*.rs of the library and tools/tests/*.rs): a new family's
# test file (tests/merge.rs -> test-merge) needs no line here; gpu-run.sh `tests-sorts` runs the comparison sorts'.
echo "carried: $(ls .gpu/bin | tr '\n' ' ')"
# One compressed pack keeps the carried tree under the device tool's 64 MiB.
# xz -9: a 64 MiB window, so the shaders every binary embeds compress once (the pack must fit the 64 MiB carry).
tar -C .gpu -cf - bin vvl | xz -9 -T2 > .gpu/pack.tar.xz
du -sh .gpu/bin .gpu/vvl .gpu/pack.tar.xz
