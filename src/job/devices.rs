//! The devices a job runs on, and the scheduler that hands its chunks to every one of them at
//! once (a worker per device taking the next chunk).

use crate::backend::{Backend, Device};
use anyhow::{bail, Result};
use std::time::Duration;

/// The devices `backend` and `adapter` name: one ([`Device::open`]), or with `adapter` `all`
/// or a list (`0,2`) every GPU adapter named. Also the reason when `auto` fell back to the CPU.
/// Errors name the options as the command line spells them (`--backend`, `--adapter`).
pub fn open(backend: Backend, adapter: Option<&str>) -> Result<(Vec<Device>, Option<String>)> {
    match adapter.filter(|a| several(a)) {
        Some(list) => Ok((open_list(backend, list)?, None)),
        None => {
            let (d, why) = open_one(backend, adapter)?;
            Ok((vec![d], why))
        }
    }
}

/// Whether `adapter` names several adapters (`all`, or a comma-separated list).
pub fn several(adapter: &str) -> bool {
    adapter == "all" || adapter.contains(',')
}

/// One device: what [`Device::open`] gives, with the options it came from in its errors.
pub fn open_one(backend: Backend, adapter: Option<&str>) -> Result<(Device, Option<String>)> {
    if let Some(list) = adapter.filter(|a| several(a)) {
        bail!("--adapter {list}: this command runs on one adapter (batch and sweep take several)");
    }
    if let (Backend::Cpu, Some(a)) = (backend, adapter) {
        bail!("--adapter {a} names a GPU adapter; it does not go with --backend cpu");
    }
    Device::open(backend, adapter).map_err(|e| match adapter {
        Some(a) => e.context(format!("--backend {backend} --adapter {a}")),
        None => e.context(format!("--backend {backend}")),
    })
}

fn open_list(backend: Backend, list: &str) -> Result<Vec<Device>> {
    use crate::gpu::{adapter_index, list_adapters, Gpu};
    if backend == Backend::Cpu {
        bail!("--adapter {list} names GPU adapters; it does not go with --backend cpu");
    }
    let picks: Vec<String> = if list == "all" {
        (0..list_adapters().len()).map(|i| i.to_string()).collect()
    } else {
        list.split(',').map(|p| p.trim().to_string()).collect()
    };
    if picks.is_empty() {
        bail!("--adapter {list}: no GPU adapter found");
    }
    if let Some(empty) = picks.iter().position(|p| p.is_empty()) {
        bail!("--adapter {list}: entry {} is empty", empty + 1);
    }
    // One device once: a list naming an adapter twice (by index or by name) is refused;
    // `all` skips a GPU it already has through another API (Mesa lists llvmpipe under Vulkan
    // and again under GL). Adapters are told apart by their index, so identical GPUs (eight
    // H100s, which some APIs do not tell apart by PCI bus) stay eight.
    let adapters = list_adapters();
    let mut chosen: Vec<(&str, usize)> = Vec::new();
    for p in &picks {
        let Some(i) = adapter_index(&adapters, p) else {
            // Opening it says what is there.
            let e = Gpu::open(Some(p))
                .err()
                .unwrap_or_else(|| anyhow::anyhow!("no adapter matches {p:?}"));
            return Err(e.context(format!("--adapter {p}")));
        };
        if let Some((first, _)) = chosen.iter().find(|&&(_, j)| j == i) {
            bail!(
                "--adapter {list}: {first} and {p} are the same adapter ({}); name each once",
                adapters[i].name
            );
        }
        let same_gpu_other_api = |&(_, j): &(&str, usize)| {
            adapters[j].name == adapters[i].name && adapters[j].backend != adapters[i].backend
        };
        if list == "all" && chosen.iter().any(same_gpu_other_api) {
            continue;
        }
        chosen.push((p, i));
    }
    let mut devices = Vec::new();
    for (p, i) in chosen {
        let g = Gpu::open(Some(&i.to_string())).map_err(|e| e.context(format!("--adapter {p}")))?;
        devices.push(Device::Gpu(Box::new(g)));
    }
    Ok(devices)
}

/// What one device did in a job: the instances it ran and its busy time.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Usage {
    pub items: usize,
    pub busy: Duration,
}

/// Runs `jobs` chunks on every device at once, a worker per device taking the next chunk, and
/// hands each result to `finished` on this thread as it comes (so journals and files have one
/// writer). A chunk returns its result and how many instances it ran; `usage` adds each
/// device's instances and busy time. The first error stops the workers and is returned.
pub fn run_chunks<T: Send>(
    devices: &[Device],
    jobs: usize,
    usage: &mut [Usage],
    work: impl Fn(&Device, usize) -> Result<(T, usize)> + Sync,
    mut finished: impl FnMut(usize, T) -> Result<()>,
) -> Result<()> {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::time::Instant;
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    type Done<T> = (usize, usize, Duration, Result<(T, usize)>);
    // A rendezvous: a worker whose result is not yet taken waits with it, so a result per
    // device is held beside the one being handled (what the memory estimates count).
    let (tx, rx) = std::sync::mpsc::sync_channel::<Done<T>>(0);
    std::thread::scope(|s| {
        for (di, device) in devices.iter().enumerate() {
            let (tx, next, stop, work) = (tx.clone(), &next, &stop, &work);
            s.spawn(move || loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                if k >= jobs || stop.load(Ordering::Relaxed) || crate::interrupt::requested() {
                    break;
                }
                let t = Instant::now();
                let r = work(device, k);
                let failed = r.is_err();
                if tx.send((k, di, t.elapsed(), r)).is_err() || failed {
                    break;
                }
            });
        }
        drop(tx);
        let mut first_error = None;
        for (k, di, busy, r) in rx {
            // A chunk that ends after a stop request may hold work cut short: none is kept.
            let r = r.and_then(|x| crate::interrupt::check().map(|()| x).map_err(Into::into));
            match r {
                Ok((t, items)) if first_error.is_none() => {
                    usage[di].items += items;
                    usage[di].busy += busy;
                    if let Err(e) = finished(k, t) {
                        stop.store(true, Ordering::Relaxed);
                        first_error = Some(e);
                    }
                }
                Ok(_) => {}
                Err(e) => {
                    stop.store(true, Ordering::Relaxed);
                    first_error.get_or_insert(e);
                }
            }
        }
        first_error.map_or(Ok(()), Err)?;
        // Workers that saw the request stopped taking chunks: the job is not complete.
        Ok(crate::interrupt::check()?)
    })
}

/// One line per device: its share of the instances and its busy time (several devices only).
pub fn usage_lines(devices: &[Device], usage: &[Usage]) -> Vec<String> {
    if devices.len() < 2 {
        return Vec::new();
    }
    let total: usize = usage.iter().map(|u| u.items).sum();
    devices
        .iter()
        .zip(usage)
        .map(|(d, u)| {
            format!(
                "{}: {} instances ({:.1}%), {:.3} s busy, {:.0} instances/s",
                d.describe(),
                u.items,
                100.0 * u.items as f64 / total.max(1) as f64,
                u.busy.as_secs_f64(),
                u.items as f64 / u.busy.as_secs_f64().max(1e-9)
            )
        })
        .collect()
}

/// The adapter column of a report: the one device's adapter, or every adapter named.
pub fn adapter_label(devices: &[Device]) -> Option<String> {
    match devices.len() {
        1 => devices[0].adapter(),
        n => Some(format!(
            "{n} adapters: {}",
            devices
                .iter()
                .filter_map(|d| d.adapter())
                .collect::<Vec<_>>()
                .join("; ")
        )),
    }
}
