target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spirv1.6-unknown-vulkan1.3-compute"

@.name.0 = private unnamed_addr constant [2 x i8] c"x\00"
@.name.1 = private unnamed_addr constant [2 x i8] c"y\00"
%PushConstants = type { float, i32 }
@push_constants = external hidden addrspace(13) externally_initialized global %PushConstants
declare target("spirv.VulkanBuffer", [0 x float], 12, 0) @llvm.spv.resource.handlefrombinding.tspirv.VulkanBuffer_a0f32_12_0t(i32, i32, i32, i32, ptr)
declare target("spirv.VulkanBuffer", [0 x float], 12, 1) @llvm.spv.resource.handlefrombinding.tspirv.VulkanBuffer_a0f32_12_1t(i32, i32, i32, i32, ptr)
declare i32 @llvm.spv.thread.id.i32(i32)
declare ptr addrspace(11) @llvm.spv.resource.getpointer.p11.tspirv.VulkanBuffer_a0f32_12_0t(target("spirv.VulkanBuffer", [0 x float], 12, 0), i32)
declare ptr addrspace(11) @llvm.spv.resource.getpointer.p11.tspirv.VulkanBuffer_a0f32_12_1t(target("spirv.VulkanBuffer", [0 x float], 12, 1), i32)

define void @"warm_up"() #0 {
entry:
  %l2 = alloca float
  %l3 = alloca i32
  %l4 = alloca i32
  %l5 = alloca float
  %l6 = alloca i32
  %h0 = call target("spirv.VulkanBuffer", [0 x float], 12, 0) @llvm.spv.resource.handlefrombinding.tspirv.VulkanBuffer_a0f32_12_0t(i32 0, i32 0, i32 1, i32 0, ptr @.name.0)
  %h1 = call target("spirv.VulkanBuffer", [0 x float], 12, 1) @llvm.spv.resource.handlefrombinding.tspirv.VulkanBuffer_a0f32_12_1t(i32 0, i32 1, i32 1, i32 0, ptr @.name.1)
  %t1 = getelementptr inbounds %PushConstants, ptr addrspace(13) @push_constants, i32 0, i32 0
  %t2 = load volatile float, ptr addrspace(13) %t1
  store float %t2, ptr %l2
  %t3 = getelementptr inbounds %PushConstants, ptr addrspace(13) @push_constants, i32 0, i32 1
  %t4 = load volatile i32, ptr addrspace(13) %t3
  store i32 %t4, ptr %l3
  %t5 = call i32 @llvm.spv.thread.id.i32(i32 0)
  store i32 %t5, ptr %l4
  %t6 = load i32, ptr %l4
  %t7 = load i32, ptr %l3
  %t8 = icmp uge i32 %t6, %t7
  br i1 %t8, label %then9, label %else10
then9:
  ret void
dead12:
  br label %endif11
else10:
  br label %endif11
endif11:
  %t13 = load i32, ptr %l4
  %t14 = call ptr addrspace(11) @llvm.spv.resource.getpointer.p11.tspirv.VulkanBuffer_a0f32_12_0t(target("spirv.VulkanBuffer", [0 x float], 12, 0) %h0, i32 %t13)
  %t15 = load float, ptr addrspace(11) %t14
  store float %t15, ptr %l5
  store i32 0, ptr %l6
  br label %loop16
loop16:
  %t20 = load i32, ptr %l6
  %t21 = icmp ult i32 %t20, 2
  br i1 %t21, label %body17, label %exit19
body17:
  %t22 = load float, ptr %l5
  %t23 = load float, ptr %l2
  %t24 = fmul float %t22, %t23
  %t25 = load i32, ptr %l6
  %t26 = uitofp i32 %t25 to float
  %t27 = fadd float %t24, %t26
  store float %t27, ptr %l5
  br label %continue18
continue18:
  %t28 = load i32, ptr %l6
  %t29 = add i32 %t28, 1
  store i32 %t29, ptr %l6
  br label %loop16
exit19:
  %t30 = load float, ptr %l5
  %t31 = load i32, ptr %l4
  %t32 = call ptr addrspace(11) @llvm.spv.resource.getpointer.p11.tspirv.VulkanBuffer_a0f32_12_1t(target("spirv.VulkanBuffer", [0 x float], 12, 1) %h1, i32 %t31)
  %t33 = load float, ptr addrspace(11) %t32
  %t34 = fadd float %t30, %t33
  %t35 = load i32, ptr %l4
  %t36 = call ptr addrspace(11) @llvm.spv.resource.getpointer.p11.tspirv.VulkanBuffer_a0f32_12_1t(target("spirv.VulkanBuffer", [0 x float], 12, 1) %h1, i32 %t35)
  store float %t34, ptr addrspace(11) %t36
  ret void
}

attributes #0 = { "hlsl.shader"="compute" "hlsl.numthreads"="64,1,1" "no-jump-tables"="true" }
