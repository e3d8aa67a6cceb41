//! Small helpers for storage buffers and blocking readback (wgpu's hello_compute pattern).

use anyhow::{Context, Result};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use wgpu::util::DeviceExt;

use super::Gpu;

/// A storage buffer the host may also write to and copy from.
const STORAGE: wgpu::BufferUsages = wgpu::BufferUsages::STORAGE
    .union(wgpu::BufferUsages::COPY_DST)
    .union(wgpu::BufferUsages::COPY_SRC);

/// A buffer the host maps to read what command encoders copied into it.
const STAGING: wgpu::BufferUsages =
    wgpu::BufferUsages::MAP_READ.union(wgpu::BufferUsages::COPY_DST);

/// The buffers a [`Gpu`] keeps between two uses: per label and usage, the largest one given
/// back. A big batch's chunks, and the batches after it, take them instead of allocating
/// gigabytes again (on an H100 a million 9x9 instances spent 133–158 ms creating buffers).
#[derive(Default)]
pub(super) struct Pool {
    free: HashMap<(&'static str, wgpu::BufferUsages), wgpu::Buffer>,
}

/// A buffer lent by [`Gpu::lend`]; dropping it gives it back to the device's pool.
pub struct Lent {
    buffer: Option<wgpu::Buffer>,
    key: (&'static str, wgpu::BufferUsages),
    pool: Arc<Mutex<Pool>>,
    spoiled: AtomicBool,
}

impl Lent {
    /// Marks the buffer as not to be lent again: a readback into it failed half-way, so it
    /// may still be mapped or waiting to be.
    pub fn spoil(&self) {
        self.spoiled.store(true, Ordering::Relaxed);
    }
}

impl std::ops::Deref for Lent {
    type Target = wgpu::Buffer;
    fn deref(&self) -> &wgpu::Buffer {
        self.buffer
            .as_ref()
            .expect("a lent buffer is held until it is dropped")
    }
}

impl Drop for Lent {
    fn drop(&mut self) {
        let Some(buffer) = self.buffer.take() else {
            return;
        };
        // One that may be left mapped (a failed readback, a panic) is not lent again.
        if self.spoiled.load(Ordering::Relaxed) || std::thread::panicking() {
            return;
        }
        let mut pool = self.pool.lock().unwrap_or_else(|e| e.into_inner());
        let keep = (pool.free.get(&self.key)).is_none_or(|old| old.size() < buffer.size());
        if keep {
            pool.free.insert(self.key, buffer);
        }
    }
}

impl Gpu {
    /// A storage buffer holding `data`, which the host may write to and read back. An empty
    /// `data` gives a 16-byte buffer of zeros (bindings must not be empty).
    pub fn storage_init<T: bytemuck::Pod>(&self, label: &str, data: &[T]) -> wgpu::Buffer {
        let contents: &[u8] = if data.is_empty() {
            &[0; 16]
        } else {
            bytemuck::cast_slice(data)
        };
        self.device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents,
                usage: STORAGE,
            })
    }

    /// A uniform buffer holding `value`, which the host may overwrite.
    pub fn uniform_init<T: bytemuck::Pod>(&self, label: &str, value: &T) -> wgpu::Buffer {
        self.device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents: bytemuck::bytes_of(value),
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            })
    }

    /// A zeroed read-write storage buffer of `bytes` bytes.
    pub fn storage_zeroed(&self, label: &str, bytes: u64) -> wgpu::Buffer {
        self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: bytes.max(4),
            usage: STORAGE,
            mapped_at_creation: false,
        })
    }

    /// A buffer of at least `bytes` bytes (4 at least) with `usage`: the pool's one of that
    /// label and usage when it is big enough, else a new one. A lent buffer holds what its
    /// last user left in it, not zeros: the borrower writes or clears whatever it reads. It
    /// goes back to the pool when dropped, and the pool keeps it until
    /// [`Gpu::release_buffers`] or until every clone of this `Gpu` is dropped.
    pub fn lend(&self, label: &'static str, usage: wgpu::BufferUsages, bytes: u64) -> Lent {
        let bytes = bytes.max(4).next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT);
        let key = (label, usage);
        let pooled = {
            let mut pool = self.pool.lock().unwrap_or_else(|e| e.into_inner());
            match pool.free.remove(&key) {
                Some(b) if b.size() >= bytes => Some(b),
                // Too small: freed here, and the bigger new one goes back in its place.
                _ => None,
            }
        };
        let buffer = pooled.unwrap_or_else(|| {
            self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: bytes,
                usage,
                mapped_at_creation: false,
            })
        });
        Lent {
            buffer: Some(buffer),
            key,
            pool: self.pool.clone(),
            spoiled: AtomicBool::new(false),
        }
    }

    /// [`Gpu::lend`] of a read-write storage buffer the host can also write and copy from.
    pub fn lend_storage(&self, label: &'static str, bytes: u64) -> Lent {
        self.lend(label, STORAGE, bytes)
    }

    /// [`Gpu::lend_storage`] holding `data` (written through the queue, so it is there at the
    /// next submission); bytes after it are left as they were.
    pub fn lend_storage_with<T: bytemuck::Pod>(&self, label: &'static str, data: &[T]) -> Lent {
        let bytes: &[u8] = bytemuck::cast_slice(data);
        let buffer = self.lend_storage(label, bytes.len() as u64);
        if !bytes.is_empty() {
            self.queue.write_buffer(&buffer, 0, bytes);
        }
        buffer
    }

    /// [`Gpu::lend`] of a buffer the host maps to read what command encoders copied into it.
    pub fn lend_staging(&self, label: &'static str, bytes: u64) -> Lent {
        self.lend(label, STAGING, bytes)
    }

    /// Frees the buffers the pool keeps ([`Gpu::lend`]); lent ones come back as they are
    /// dropped.
    pub fn release_buffers(&self) {
        let mut pool = self.pool.lock().unwrap_or_else(|e| e.into_inner());
        pool.free.clear();
    }

    /// Bytes the pool keeps now.
    pub fn pooled_bytes(&self) -> u64 {
        let pool = self.pool.lock().unwrap_or_else(|e| e.into_inner());
        pool.free.values().map(wgpu::Buffer::size).sum()
    }

    /// Copies the first `len` u32 of `src` back to the host, waiting for the GPU.
    pub fn read_u32(&self, src: &wgpu::Buffer, len: usize) -> Result<Vec<u32>> {
        self.read_pod(src, 0, len)
    }

    /// Copies `count` values of type `T` from byte `offset` of `src` back to the host,
    /// waiting for the GPU (a staging buffer, as in wgpu's hello_compute).
    pub fn read_pod<T: bytemuck::Pod>(
        &self,
        src: &wgpu::Buffer,
        offset: u64,
        count: usize,
    ) -> Result<Vec<T>> {
        let bytes = (count * std::mem::size_of::<T>()) as u64;
        if bytes == 0 {
            return Ok(Vec::new());
        }
        let staging = self.staging("staging", bytes);
        let mut enc = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
        enc.copy_buffer_to_buffer(src, offset, &staging, 0, bytes);
        let out = self.submit_and_read(enc, &staging, bytes)?;
        Ok(bytemuck::pod_collect_to_vec::<u8, T>(&out))
    }

    /// A buffer the host maps to read what command encoders copied into it.
    pub fn staging(&self, label: &str, bytes: u64) -> wgpu::Buffer {
        self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: bytes.max(4),
            usage: STAGING,
            mapped_at_creation: false,
        })
    }

    /// Submits `enc` (whose last commands copy into `staging`), waits for it, and returns the
    /// first `bytes` bytes of `staging`; the buffer is unmapped again, ready for reuse. One
    /// submission and one wait, however many buffers `enc` copied.
    pub fn submit_and_read(
        &self,
        enc: wgpu::CommandEncoder,
        staging: &wgpu::Buffer,
        bytes: u64,
    ) -> Result<Vec<u8>> {
        self.submit_and_read_with(enc, staging, bytes, <[u8]>::to_vec)
    }

    /// [`Gpu::submit_and_read`], handing the first `bytes` bytes of `staging` to `read` where
    /// they are mapped, without copying them first (a million 9x9 results are 324 MB), and
    /// returning what `read` returns. The range starts [`wgpu::MAP_ALIGNMENT`]-aligned, so `read`
    /// may view it as u32 or f32.
    pub fn submit_and_read_with<R>(
        &self,
        enc: wgpu::CommandEncoder,
        staging: &wgpu::Buffer,
        bytes: u64,
        read: impl FnOnce(&[u8]) -> R,
    ) -> Result<R> {
        if bytes == 0 {
            self.queue.submit([enc.finish()]);
            return Ok(read(&[]));
        }
        let reading = self.submit_reading(enc, staging, bytes);
        self.read_back(reading, staging, read)
    }

    /// Submits `enc` and asks for the first `bytes` (more than 0) of `staging` to be mapped
    /// once it has run, without waiting: the host goes on (submits more, builds results) and
    /// [`Gpu::read_back`] waits later. Until then `staging` must not be used again.
    pub fn submit_reading(
        &self,
        enc: wgpu::CommandEncoder,
        staging: &wgpu::Buffer,
        bytes: u64,
    ) -> Reading {
        let submission = self.queue.submit([enc.finish()]);
        let (tx, mapped) = std::sync::mpsc::channel();
        staging.map_async(wgpu::MapMode::Read, ..bytes, move |r| {
            let _ = tx.send(r);
        });
        Reading {
            submission,
            mapped,
            bytes,
        }
    }

    /// Waits for the readback `reading` of `staging` ([`Gpu::submit_reading`]), hands its
    /// bytes to `read` where they are mapped, unmaps them, and returns what `read` returns.
    /// Work submitted after it keeps running meanwhile.
    pub fn read_back<R>(
        &self,
        reading: Reading,
        staging: &wgpu::Buffer,
        read: impl FnOnce(&[u8]) -> R,
    ) -> Result<R> {
        self.device
            .poll(wgpu::PollType::Wait {
                submission_index: Some(reading.submission),
                timeout: None,
            })
            .context("waiting for the GPU")?;
        reading
            .mapped
            .recv()
            .context("the GPU readback was dropped")?
            .context("mapping the readback buffer")?;
        let out = read(
            &staging
                .get_mapped_range(..reading.bytes)
                .context("reading the mapped buffer")?,
        );
        staging.unmap();
        Ok(out)
    }
}

/// A readback submitted and not yet waited for ([`Gpu::submit_reading`]).
pub struct Reading {
    submission: wgpu::SubmissionIndex,
    mapped: std::sync::mpsc::Receiver<Result<(), wgpu::BufferAsyncError>>,
    bytes: u64,
}
