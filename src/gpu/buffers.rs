//! Small helpers for storage buffers and blocking readback (wgpu's hello_compute pattern).

use anyhow::{Context, Result};
use wgpu::util::DeviceExt;

use super::Gpu;

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
                usage: wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_DST
                    | wgpu::BufferUsages::COPY_SRC,
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
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
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
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
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
        let idx = self.queue.submit([enc.finish()]);
        if bytes == 0 {
            return Ok(read(&[]));
        }
        let (tx, rx) = std::sync::mpsc::channel();
        staging.map_async(wgpu::MapMode::Read, ..bytes, move |r| {
            let _ = tx.send(r);
        });
        self.device
            .poll(wgpu::PollType::Wait {
                submission_index: Some(idx),
                timeout: None,
            })
            .context("waiting for the GPU")?;
        rx.recv()
            .context("the GPU readback was dropped")?
            .context("mapping the readback buffer")?;
        let out = read(
            &staging
                .get_mapped_range(..bytes)
                .context("reading the mapped buffer")?,
        );
        staging.unmap();
        Ok(out)
    }
}
