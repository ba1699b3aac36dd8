//! The library's public surface stays small and documented: `cargo doc` of the library without features (what a
//! renderer sees on docs.rs) prints no warning (the crate denies missing docs without the `diagnostics` feature,
//! and every intra-doc link resolves to a public item), and rustdoc lists at most `MAX_ITEMS` public items.
//! Skipped, with a note on stderr, where cargo cannot be run (the GPU machine has no toolchain).

#[path = "../../tests/common/skip.rs"]
mod skip;
use std::io::Write;
use std::path::Path;
use std::process::Command;

/// The ceiling of public items (structs, enums, traits, functions, constants, type aliases; not methods or
/// fields) that rustdoc's `all.html` lists without features.
const MAX_ITEMS: usize = 120;

#[test]
fn public_surface_is_small_and_documented() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let target = root.join("target").join("api-doc");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = match Command::new(&cargo)
        .current_dir(&root)
        .env("CARGO_TARGET_DIR", &target)
        .env("RUSTDOCFLAGS", "-D warnings")
        .args(["doc", "--no-deps", "-p", "vksort"])
        .output()
    {
        Ok(o) => o,
        Err(e) => {
            skip::skip("cargo", &format!("cannot run {cargo:?} ({e})"));
            return;
        }
    };
    assert!(
        out.status.success(),
        "`cargo doc -p vksort` (RUSTDOCFLAGS=-D warnings) failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let all = std::fs::read_to_string(target.join("doc").join("vksort").join("all.html"))
        .expect("rustdoc's all.html");
    // Each item is one `<li><a href="PATH">NAME</a></li>` of the item lists.
    let items: Vec<&str> = all
        .split("<li><a href=\"")
        .skip(1)
        .filter_map(|s| s.split_once("\">")?.1.split_once("</a>").map(|(n, _)| n))
        .collect();
    let _ = writeln!(
        std::io::stderr(),
        "api: {} public items without features (ceiling {MAX_ITEMS})",
        items.len()
    );
    assert!(
        items.len() <= MAX_ITEMS,
        "{} public items (ceiling {MAX_ITEMS}): {}",
        items.len(),
        items.join(", ")
    );
    // The internals stay internal.
    for item in &items {
        let name = item.rsplit("::").next().unwrap_or(item);
        assert!(
            !item.starts_with("shaders::")
                && ![
                    "SubgroupPlan",
                    "Kernel",
                    "SortBackend",
                    "Region",
                    "RadixSort"
                ]
                .contains(&name),
            "`{item}` is public without the diagnostics feature"
        );
    }
}

/// The README's recording outline (a doctest of the library, as every Rust block of the README) and the crate
/// docs' program (docs/recording.md, a doctest that runs and checks its result) make the same vksort calls:
/// every `Type::function` path and `.method(` of vksort's the outline uses appears in the program, so neither
/// drifts from the other.
#[test]
fn readme_outline_and_the_recording_program_make_the_same_calls() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let block = |text: &str, fence: &str| -> String {
        let start = text
            .find(&format!("```{fence}\nuse ash::vk;"))
            .unwrap_or_else(|| panic!("a `{fence}` block starting with `use ash::vk;`"));
        let end = start + text[start..].find("\n```\n").expect("its end");
        text[start..end].to_string()
    };
    let (Ok(readme), Ok(docs)) = (
        std::fs::read_to_string(root.join("README.md")),
        std::fs::read_to_string(root.join("docs/recording.md")),
    ) else {
        // A test executable carried away from its source tree (the GPU machine).
        return skip::skip(
            "source-tree",
            &format!("no README.md under {}", root.display()),
        );
    };
    let (outline, program) = (block(&readme, "rust,no_run"), block(&docs, "rust"));
    let calls = [
        "DeviceRequirements::query",
        ".compute_queue_family(",
        ".enable(",
        "Context::adopt",
        "AdoptInfo::new",
        "Sorter::new",
        ".storage_requirements(",
        "BufferRef::from_raw",
        "Recorder::new",
        ".cmd_sort_indirect(",
    ];
    for call in calls {
        assert!(
            outline.contains(call),
            "the README's outline no longer calls `{call}`"
        );
        assert!(
            program.contains(call),
            "docs/recording.md's program does not call `{call}`, which the README's outline does"
        );
    }
}
