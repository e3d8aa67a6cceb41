//! Opening a wgpu device with the adapter's own limits (so big batches fit) and naming it.

use anyhow::{anyhow, bail, Context, Result};
use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// An open device and what it is. Clones share the device, its queue and its kernel cache.
#[derive(Clone)]
pub struct Gpu {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub info: wgpu::AdapterInfo,
    pub limits: wgpu::Limits,
    /// Compiled kernels by name, so repeated batches do not recompile.
    kernels: Arc<Mutex<HashMap<String, Arc<dyn Any + Send + Sync>>>>,
    /// Buffers between two uses ([`Gpu::lend`]), so chunks and batches do not reallocate.
    pub(super) pool: Arc<Mutex<super::buffers::Pool>>,
}

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Gpu({})", self.describe())
    }
}

fn instance() -> wgpu::Instance {
    // `with_env` honours WGPU_BACKEND / WGPU_ADAPTER_NAME for people who need to steer wgpu.
    wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle().with_env())
}

/// Every adapter wgpu can see, as (index, info).
pub fn list_adapters() -> Vec<wgpu::AdapterInfo> {
    let inst = instance();
    pollster::block_on(inst.enumerate_adapters(wgpu::Backends::all()))
        .into_iter()
        .map(|a| a.get_info())
        .collect()
}

/// The index in `adapters` ([`list_adapters`]) of the adapter `pick` names: an index, or a
/// case-insensitive part of its name (the first adapter whose name holds it).
pub fn adapter_index(adapters: &[wgpu::AdapterInfo], pick: &str) -> Option<usize> {
    match pick.parse::<usize>() {
        Ok(i) => (i < adapters.len()).then_some(i),
        Err(_) => adapters
            .iter()
            .position(|a| a.name.to_lowercase().contains(&pick.to_lowercase())),
    }
}

impl Gpu {
    /// Opens the default high-performance adapter, or the one `pick` names: an index in
    /// [`list_adapters`], or a case-insensitive part of its name.
    pub fn open(pick: Option<&str>) -> Result<Gpu> {
        let inst = instance();
        let adapter = match pick {
            None => pollster::block_on(inst.request_adapter(&wgpu::RequestAdapterOptions {
                power_preference: wgpu::PowerPreference::HighPerformance,
                ..Default::default()
            }))
            .map_err(|e| {
                anyhow!(
                    "no GPU adapter found ({e}). Install a Vulkan driver (on Debian/Ubuntu: \
                     `apt-get install mesa-vulkan-drivers` gives the software one, lavapipe), \
                     or run on the CPU"
                )
            })?,
            Some(p) => {
                let all = pollster::block_on(inst.enumerate_adapters(wgpu::Backends::all()));
                if all.is_empty() {
                    bail!("no GPU adapter found; run on the CPU");
                }
                let names: Vec<String> = all
                    .iter()
                    .enumerate()
                    .map(|(i, a)| format!("{i}: {}", describe(&a.get_info())))
                    .collect();
                let infos: Vec<wgpu::AdapterInfo> = all.iter().map(|a| a.get_info()).collect();
                let found = adapter_index(&infos, p).and_then(|i| all.into_iter().nth(i));
                found.ok_or_else(|| {
                    anyhow!(
                        "no adapter matches {p:?}; available:\n  {}",
                        names.join("\n  ")
                    )
                })?
            }
        };
        let info = adapter.get_info();
        // Ask for everything the adapter offers: big storage buffers let big batches run in few chunks.
        let limits = adapter.limits();
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("gpu-sudoku"),
            required_features: wgpu::Features::empty(),
            required_limits: limits.clone(),
            ..Default::default()
        }))
        .with_context(|| format!("cannot open a device on {}", describe(&info)))?;
        Ok(Gpu {
            device,
            queue,
            info,
            limits,
            kernels: Arc::new(Mutex::new(HashMap::new())),
            pool: Arc::default(),
        })
    }

    /// The kernel stored under `key`, made by `make` the first time.
    pub fn cached<T: Any + Send + Sync>(
        &self,
        key: &str,
        make: impl FnOnce() -> Result<T>,
    ) -> Result<Arc<T>> {
        let mut map = self.kernels.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(k) = map.get(key) {
            if let Ok(k) = k.clone().downcast::<T>() {
                return Ok(k);
            }
        }
        let k = Arc::new(make()?);
        map.insert(key.to_string(), k.clone());
        Ok(k)
    }

    /// "NVIDIA H100 (Vulkan, DiscreteGpu, driver …)".
    pub fn describe(&self) -> String {
        describe(&self.info)
    }

    /// Largest storage buffer binding usable here, in bytes (wgpu caps buffers at i32::MAX).
    pub fn max_binding_bytes(&self) -> u64 {
        self.limits
            .max_storage_buffer_binding_size
            .min(self.limits.max_buffer_size)
            .min(i32::MAX as u64)
    }
}

/// Adapter name, backend, type and driver in one line, so a report names the driver that ran
/// it: "NVIDIA H100 (Vulkan, DiscreteGpu, driver NVIDIA 580.95.05)".
pub fn describe(info: &wgpu::AdapterInfo) -> String {
    let driver = [info.driver.trim(), info.driver_info.trim()]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    let driver = if driver.is_empty() {
        String::new()
    } else {
        format!(", driver {driver}")
    };
    format!(
        "{} ({:?}, {:?}{driver})",
        info.name, info.backend, info.device_type
    )
}
