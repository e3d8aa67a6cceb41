//! The `gpu-sudoku` command line: a thin layer over the library (`src/cli/`, one module per
//! subcommand).

mod cli;

fn main() -> std::process::ExitCode {
    reserve_standard_streams();
    quiet_vulkan_loader();
    cli::main()
}

/// Whether standard output was closed when the process was loaded (`>&-`). Rust's runtime puts
/// /dev/null on a closed standard descriptor before `main` (so no file the command opens takes
/// its number), after which every write to it succeeds unseen; this check runs before that,
/// as the loader runs the program's constructors (ELF `.init_array`, Linux).
static STDOUT_CLOSED_AT_LOAD: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

#[cfg(target_os = "linux")]
#[used]
#[link_section = ".init_array"]
static CHECK_STDOUT_AT_LOAD: extern "C" fn() = check_stdout_at_load;

#[cfg(target_os = "linux")]
extern "C" fn check_stdout_at_load() {
    // SAFETY: F_GETFD only reads descriptor 1's flags; it fails with EBADF when it is closed.
    if unsafe { libc::fcntl(1, libc::F_GETFD) } == -1 {
        STDOUT_CLOSED_AT_LOAD.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

/// A standard output closed at the start fails the command when it prints anything (exit 1),
/// where Rust's standard library would drop what it prints without a word.
fn reserve_standard_streams() {
    if STDOUT_CLOSED_AT_LOAD.load(std::sync::atomic::Ordering::Relaxed) {
        cli::output::stdout_was_closed();
    }
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
