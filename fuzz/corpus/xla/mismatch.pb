
´	/host:CPUŒpython3è"Ð†"=è"8d"
 €€€€€à" è" €" €" €" €øÿÿ"=Ð"8d"
 €ˆ€€€à" ˆ'" €P" €0" €0" €Ðÿÿ"= "8d"
 €€€€€à" „" €" €0" €0" €Ðÿÿ"7”#"8e" € " @" €" €" €" €þÿÿWpy_xla_callback/1è"=¸"8d"
 €€€€€à" è" €" €(" €0" €Øÿÿ"MemoryAllocation"MemoryDeallocation"62.CommonPjRtLoadedExecutable::Execute (jit_step)*allocator_name*addr*requested_bytes*allocation_bytes*bytes_allocated*peak_bytes_in_use*bytes_available*dd	GPU_0_bfc*eexla_gpu_host_bfc
D/device:GPU:0#Stream #14(Compute)è"¼"
fusion