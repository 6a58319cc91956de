//! What the driver compiled a kernel's pipelines into (`VK_KHR_pipeline_executable_properties`):
//! register counts, instruction counts, spills, as the driver names them. The GEMM tuning
//! reads these to explain a rate (docs/PERFORMANCE.md, "Tensor cores").

use std::ffi::CStr;

use ash::vk;

use crate::pipeline::Kernel;
use crate::{lock, Result, RuntimeError};

/// One statistic of one pipeline executable, as the driver reports it.
#[derive(Debug, Clone, PartialEq)]
pub struct PipelineStatistic {
    /// The executable's name (e.g. `Compute Shader`).
    pub executable: String,
    /// The statistic's name (e.g. `Register Count`).
    pub name: String,
    /// Its value, printed: an integer, a float or `true`/`false`.
    pub value: String,
}

fn text(chars: &[std::ffi::c_char]) -> String {
    // SAFETY: the driver writes NUL-terminated strings into these fixed arrays.
    unsafe { CStr::from_ptr(chars.as_ptr()) }
        .to_string_lossy()
        .into_owned()
}

impl Kernel {
    /// The driver's statistics for every pipeline this kernel has created so far (launch it
    /// first). Fails naming the reason where the context was made without
    /// [`crate::ContextOptions::pipeline_statistics`] or the device lacks
    /// `VK_KHR_pipeline_executable_properties`.
    pub fn pipeline_statistics(&self) -> Result<Vec<PipelineStatistic>> {
        let shared = &self.inner.shared;
        let Some(ext) = shared.executable_properties.as_ref() else {
            return Err(RuntimeError::Launch {
                kernel: self.name().to_string(),
                message: "no pipeline statistics: the context was created without \
                          `pipeline_statistics`, or the device has no \
                          VK_KHR_pipeline_executable_properties"
                    .into(),
            });
        };
        let pipelines: Vec<vk::Pipeline> = lock(&self.inner.pipelines).values().copied().collect();
        let vk_err = |call: &'static str| move |result| RuntimeError::Vulkan { call, result };
        let mut out = Vec::new();
        for pipeline in pipelines {
            let info = vk::PipelineInfoKHR::default().pipeline(pipeline);
            // SAFETY: the pipeline is alive (held by this kernel) and was created with
            // CAPTURE_STATISTICS on a device with the extension enabled.
            let executables = unsafe { ext.get_pipeline_executable_properties(&info) }
                .map_err(vk_err("vkGetPipelineExecutablePropertiesKHR"))?;
            for (index, exe) in executables.iter().enumerate() {
                let exe_info = vk::PipelineExecutableInfoKHR::default()
                    .pipeline(pipeline)
                    .executable_index(index as u32);
                // SAFETY: as above; the index is one the driver listed.
                let stats = unsafe { ext.get_pipeline_executable_statistics(&exe_info) }
                    .map_err(vk_err("vkGetPipelineExecutableStatisticsKHR"))?;
                for st in stats {
                    // SAFETY: `format` says which union member the driver wrote.
                    let value = unsafe {
                        match st.format {
                            vk::PipelineExecutableStatisticFormatKHR::BOOL32 => {
                                (st.value.b32 != 0).to_string()
                            }
                            vk::PipelineExecutableStatisticFormatKHR::INT64 => {
                                st.value.i64.to_string()
                            }
                            vk::PipelineExecutableStatisticFormatKHR::UINT64 => {
                                st.value.u64.to_string()
                            }
                            _ => format!("{:.3}", st.value.f64),
                        }
                    };
                    out.push(PipelineStatistic {
                        executable: text(&exe.name),
                        name: text(&st.name),
                        value,
                    });
                }
            }
        }
        Ok(out)
    }
}
