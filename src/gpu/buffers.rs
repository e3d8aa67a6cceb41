//! Small helpers for storage buffers and blocking readback (wgpu's hello_compute pattern).

use anyhow::{Context, Result};
use wgpu::util::DeviceExt;

use super::Gpu;

impl Gpu {
    /// A storage buffer holding `data` (at least 4 bytes, as wgpu wants non-empty bindings).
    pub fn storage_init(&self, label: &str, data: &[u32], writable: bool) -> wgpu::Buffer {
        let mut usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST;
        if writable {
            usage |= wgpu::BufferUsages::COPY_SRC;
        }
        let contents: &[u32] = if data.is_empty() { &[0] } else { data };
        self.device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents: bytemuck::cast_slice(contents),
                usage,
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
        let staging = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("staging"),
            size: bytes,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut enc = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
        enc.copy_buffer_to_buffer(src, offset, &staging, 0, bytes);
        let idx = self.queue.submit([enc.finish()]);
        let (tx, rx) = std::sync::mpsc::channel();
        staging.map_async(wgpu::MapMode::Read, .., move |r| {
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
        let out = {
            let view = staging
                .get_mapped_range(..)
                .context("reading the mapped buffer")?;
            bytemuck::cast_slice::<u8, T>(&view).to_vec()
        };
        staging.unmap();
        Ok(out)
    }

    /// Compiles a compute pipeline from WGSL source with one bind group of the given entries
    /// (binding 0 uniform, then storage buffers: `true` = read-write).
    ///
    /// `trusted` drops naga's runtime bounds checks (about 2x faster ILCA on an H100). Only for
    /// kernels whose every index is in range by construction, which their CPU-agreement tests
    /// exercise for every option and size.
    pub fn compute_pipeline(
        &self,
        label: &str,
        source: &str,
        storage_rw: &[bool],
        trusted: bool,
    ) -> Result<(wgpu::ComputePipeline, wgpu::BindGroupLayout)> {
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let desc = wgpu::ShaderModuleDescriptor {
            label: Some(label),
            source: wgpu::ShaderSource::Wgsl(source.into()),
        };
        let module = if trusted {
            // SAFETY: the caller vouches that the kernel never indexes out of bounds (see above).
            unsafe {
                self.device
                    .create_shader_module_trusted(desc, wgpu::ShaderRuntimeChecks::unchecked())
            }
        } else {
            self.device.create_shader_module(desc)
        };
        let mut entries = vec![wgpu::BindGroupLayoutEntry {
            binding: 0,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Uniform,
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        }];
        for (i, &rw) in storage_rw.iter().enumerate() {
            entries.push(wgpu::BindGroupLayoutEntry {
                binding: i as u32 + 1,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Storage { read_only: !rw },
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            });
        }
        let bgl = self
            .device
            .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some(label),
                entries: &entries,
            });
        let layout = self
            .device
            .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(label),
                bind_group_layouts: &[Some(&bgl)],
                immediate_size: 0,
            });
        let pipeline = self
            .device
            .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(label),
                layout: Some(&layout),
                module: &module,
                entry_point: Some("main"),
                compilation_options: Default::default(),
                cache: None,
            });
        if let Some(e) = pollster::block_on(scope.pop()) {
            anyhow::bail!(
                "the {label} shader failed to compile on {}: {e}",
                self.describe()
            );
        }
        Ok((pipeline, bgl))
    }
}
