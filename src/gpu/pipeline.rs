//! Compute pipelines with their bind-group layout spelled out binding by binding, each named as
//! in the kernel's WGSL (wgpu's hello_compute pattern, nothing inferred).

use anyhow::Result;

use super::Gpu;

/// How a kernel sees one buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// `var<uniform>`.
    Uniform,
    /// `var<storage, read>`.
    Read,
    /// `var<storage, read_write>`.
    ReadWrite,
}

/// One entry of a kernel's bind group 0: `@binding(i)` is the i-th entry of the kernel's list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Binding {
    /// The variable's name in the WGSL source.
    pub name: &'static str,
    pub access: Access,
}

impl Binding {
    pub const fn uniform(name: &'static str) -> Binding {
        Binding {
            name,
            access: Access::Uniform,
        }
    }
    pub const fn read(name: &'static str) -> Binding {
        Binding {
            name,
            access: Access::Read,
        }
    }
    pub const fn read_write(name: &'static str) -> Binding {
        Binding {
            name,
            access: Access::ReadWrite,
        }
    }

    fn layout_entry(&self, index: u32) -> wgpu::BindGroupLayoutEntry {
        let ty = match self.access {
            Access::Uniform => wgpu::BufferBindingType::Uniform,
            Access::Read => wgpu::BufferBindingType::Storage { read_only: true },
            Access::ReadWrite => wgpu::BufferBindingType::Storage { read_only: false },
        };
        wgpu::BindGroupLayoutEntry {
            binding: index,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty,
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        }
    }

    /// The WGSL declaration this binding expects at `index`, e.g.
    /// `@group(0) @binding(4) var<storage, read_write> p` (for checks against the source).
    pub fn declaration(&self, index: usize) -> String {
        let space = match self.access {
            Access::Uniform => "uniform",
            Access::Read => "storage, read",
            Access::ReadWrite => "storage, read_write",
        };
        format!("@group(0) @binding({index}) var<{space}> {}", self.name)
    }
}

/// A compiled compute kernel (one entry point, `main` unless named) and the layout of its one
/// bind group.
pub struct Pipeline {
    pub pipeline: wgpu::ComputePipeline,
    pub layout: wgpu::BindGroupLayout,
    label: &'static str,
    bindings: &'static [Binding],
}

/// Whether naga's runtime bounds checks stay in the compiled kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoundsChecks {
    On,
    /// Only for kernels whose every index is in range by construction, which their
    /// CPU-agreement tests exercise for every option and size (about 2x faster ILCA on an H100).
    Off,
}

impl Pipeline {
    /// Compiles `source` with one bind group of `bindings` (binding i = `bindings[i]`). Fails
    /// with the compiler's message when the source does not compile on this device.
    pub fn new(
        gpu: &Gpu,
        label: &'static str,
        source: &str,
        bindings: &'static [Binding],
        checks: BoundsChecks,
    ) -> Result<Pipeline> {
        Pipeline::entry(gpu, label, "main", source, bindings, checks)
    }

    /// [`Pipeline::new`] for the entry point `entry` of a source that has several.
    pub fn entry(
        gpu: &Gpu,
        label: &'static str,
        entry: &str,
        source: &str,
        bindings: &'static [Binding],
        checks: BoundsChecks,
    ) -> Result<Pipeline> {
        let scope = gpu.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let desc = wgpu::ShaderModuleDescriptor {
            label: Some(label),
            source: wgpu::ShaderSource::Wgsl(source.into()),
        };
        let module = match checks {
            BoundsChecks::On => gpu.device.create_shader_module(desc),
            // SAFETY: the caller vouches that the kernel never indexes out of bounds (see
            // `BoundsChecks::Off`).
            BoundsChecks::Off => unsafe {
                gpu.device
                    .create_shader_module_trusted(desc, wgpu::ShaderRuntimeChecks::unchecked())
            },
        };
        let entries: Vec<wgpu::BindGroupLayoutEntry> = bindings
            .iter()
            .enumerate()
            .map(|(i, b)| b.layout_entry(i as u32))
            .collect();
        let layout = gpu
            .device
            .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some(label),
                entries: &entries,
            });
        let pipeline_layout = gpu
            .device
            .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(label),
                bind_group_layouts: &[Some(&layout)],
                immediate_size: 0,
            });
        let pipeline = gpu
            .device
            .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(label),
                layout: Some(&pipeline_layout),
                module: &module,
                entry_point: Some(entry),
                compilation_options: Default::default(),
                cache: None,
            });
        if let Some(e) = pollster::block_on(scope.pop()) {
            anyhow::bail!(
                "the {label} shader failed to compile on {}: {e}",
                gpu.describe()
            );
        }
        Ok(Pipeline {
            pipeline,
            layout,
            label,
            bindings,
        })
    }

    /// A bind group with `buffers[i]` at binding i, in the order of the kernel's bindings.
    pub fn bind(&self, gpu: &Gpu, buffers: &[&wgpu::Buffer]) -> wgpu::BindGroup {
        assert_eq!(
            buffers.len(),
            self.bindings.len(),
            "the {} kernel binds {} buffers",
            self.label,
            self.bindings.len()
        );
        let entries: Vec<wgpu::BindGroupEntry> = buffers
            .iter()
            .enumerate()
            .map(|(i, b)| wgpu::BindGroupEntry {
                binding: i as u32,
                resource: b.as_entire_binding(),
            })
            .collect();
        gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(self.label),
            layout: &self.layout,
            entries: &entries,
        })
    }

    /// Records one dispatch of `groups` workgroups (x, y) into `enc`.
    pub fn dispatch(
        &self,
        enc: &mut wgpu::CommandEncoder,
        bind: &wgpu::BindGroup,
        groups: (u32, u32),
    ) {
        let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some(self.label),
            timestamp_writes: None,
        });
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, bind, &[]);
        pass.dispatch_workgroups(groups.0, groups.1, 1);
    }
}

/// Workgroups for `count` in a 2-D dispatch when one dimension cannot hold them all: (x, y)
/// with x ≤ the device's limit and x·y ≥ count. Kernels recover the index as `x + y·groups_x`.
pub fn grid_2d(gpu: &Gpu, count: u32) -> (u32, u32) {
    let max_dim = gpu.limits.max_compute_workgroups_per_dimension.max(1);
    let x = count.clamp(1, max_dim);
    (x, count.div_ceil(x))
}
