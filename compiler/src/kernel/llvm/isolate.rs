//! Emission in a child process. LLVM 23.1's SPIR-V target ends the process with a
//! segmentation fault on some kernels (a shared array indexed inside a loop crashes its
//! pointer-cast legalization, docs/backends.md); a compiler must refuse such a kernel, not
//! die. So kernels of that kind are optimized and emitted by a `fork`ed child that sends the
//! words (or LLVM's error) back through a pipe; a child that crashes, or takes longer than
//! [`LIMIT_MS`], becomes an error naming what happened, which `compile` turns into E0045.
//! The child only runs LLVM on its own copy of the text and exits with `_exit`, touching
//! nothing the parent shares (glibc's allocator is fork-safe; LLVM's target registry is
//! initialized in the parent first, so the child never takes its lock).

use super::emit;

/// How long a child may take (a child that inherited a lock another thread held at the
/// fork would wait forever).
const LIMIT_MS: i32 = 60_000;

/// [`emit::emit_spirv`] in a child process (on Unix; elsewhere in this one).
#[cfg(unix)]
pub(crate) fn emit_isolated(text: &str, pipeline: &str) -> Result<Vec<u32>, String> {
    emit::init_target();
    let mut fds = [0i32; 2];
    // SAFETY: `fds` has room for the two descriptors.
    if unsafe { libc::pipe(fds.as_mut_ptr()) } != 0 {
        return emit::emit_spirv(text, pipeline);
    }
    let [read_fd, write_fd] = fds;
    // SAFETY: the child only runs `child` and leaves with `_exit`.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        // SAFETY: both descriptors are ours.
        unsafe {
            libc::close(read_fd);
            libc::close(write_fd);
        }
        return emit::emit_spirv(text, pipeline);
    }
    if pid == 0 {
        // SAFETY: in the child: its copy of the read end is closed, the write end is its own.
        unsafe { libc::close(read_fd) };
        child(write_fd, text, pipeline);
    }
    // SAFETY: the parent's copy of the write end; the child holds its own.
    unsafe { libc::close(write_fd) };
    let data = read_all(read_fd);
    // SAFETY: our read end.
    unsafe { libc::close(read_fd) };
    let mut status = 0;
    let finished = data.is_some();
    if !finished {
        // SAFETY: `pid` is our child; killing it ends the wait below.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    // SAFETY: reaps our child.
    unsafe { libc::waitpid(pid, &mut status, 0) };
    let Some(data) = data else {
        return Err(format!("LLVM did not finish within {} s", LIMIT_MS / 1000));
    };
    if libc::WIFSIGNALED(status) {
        return Err(format!(
            "LLVM crashed (signal {}) emitting this kernel",
            libc::WTERMSIG(status)
        ));
    }
    match data.split_first() {
        Some((0, words)) if words.len() % 4 == 0 => Ok(words
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()),
        Some((1, message)) => Err(String::from_utf8_lossy(message).into_owned()),
        _ => Err("LLVM ended without emitting this kernel".into()),
    }
}

/// [`emit::emit_spirv`] in this process (no `fork` here).
#[cfg(not(unix))]
pub(crate) fn emit_isolated(text: &str, pipeline: &str) -> Result<Vec<u32>, String> {
    emit::emit_spirv(text, pipeline)
}

/// The child: emits, writes `0` and the words or `1` and the error, and exits.
#[cfg(unix)]
fn child(fd: i32, text: &str, pipeline: &str) -> ! {
    // A crash here is expected now and then: no core file for it.
    let none = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: sets this process's own limit from a valid struct.
    unsafe { libc::setrlimit(libc::RLIMIT_CORE, &none) };
    let result = std::panic::catch_unwind(|| emit::emit_spirv(text, pipeline));
    let mut out = Vec::new();
    match result {
        Ok(Ok(words)) => {
            out.push(0u8);
            for w in words {
                out.extend_from_slice(&w.to_le_bytes());
            }
        }
        Ok(Err(e)) => {
            out.push(1u8);
            out.extend_from_slice(e.as_bytes());
        }
        Err(_) => {
            out.push(1u8);
            out.extend_from_slice(b"LLVM panicked emitting this kernel");
        }
    }
    let mut at = 0;
    while at < out.len() {
        // SAFETY: writes from a live buffer to our pipe.
        let n = unsafe { libc::write(fd, out[at..].as_ptr().cast(), out.len() - at) };
        if n <= 0 {
            break;
        }
        at += n as usize;
    }
    // SAFETY: leaves without running the parent's destructors or atexit handlers.
    unsafe { libc::_exit(0) }
}

/// Everything the child writes until it closes the pipe; `None` when it takes longer than
/// [`LIMIT_MS`].
#[cfg(unix)]
fn read_all(fd: i32) -> Option<Vec<u8>> {
    let mut data = Vec::new();
    let mut buf = [0u8; 65536];
    let start = std::time::Instant::now();
    loop {
        let left = LIMIT_MS - start.elapsed().as_millis().min(LIMIT_MS as u128) as i32;
        if left <= 0 {
            return None;
        }
        let mut p = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd.
        let ready = unsafe { libc::poll(&mut p, 1, left) };
        if ready == 0 {
            return None;
        }
        if ready < 0 {
            if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Some(data);
        }
        // SAFETY: reads into a live buffer.
        let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
        if n == 0 {
            return Some(data);
        }
        if n < 0 {
            if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Some(data);
        }
        data.extend_from_slice(&buf[..n as usize]);
    }
}
