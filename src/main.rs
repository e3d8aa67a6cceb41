//! The `gpu-sudoku` command line: a thin layer over the library (`src/cli/`, one module per
//! subcommand).

mod cli;

fn main() -> std::process::ExitCode {
    quiet_vulkan_loader();
    cli::main()
}

/// Mesa's Vulkan drivers print "XDG_RUNTIME_DIR is invalid or not set" on stderr when that
/// folder is missing (CI, containers, `env -i`); stderr carries only the project's own lines, so
/// point it at a private folder of ours first. Runs before any thread starts.
fn quiet_vulkan_loader() {
    let valid =
        std::env::var_os("XDG_RUNTIME_DIR").is_some_and(|d| std::path::Path::new(&d).is_dir());
    if valid {
        return;
    }
    let dir = std::env::temp_dir().join(format!("gpu-sudoku-runtime-{}", user_id()));
    if std::fs::create_dir_all(&dir).is_ok() {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700));
        }
        std::env::set_var("XDG_RUNTIME_DIR", &dir);
    }
}

/// The user's id (names the runtime folder so users do not share one).
fn user_id() -> String {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let Ok(m) = std::fs::metadata("/proc/self") {
            return m.uid().to_string();
        }
    }
    std::env::var("USER").unwrap_or_else(|_| "user".into())
}
