
È	/host:CPUßpython3è"Ð†"@è"8d"
 €€€€€à" €€@" €€@" €€@" €€@" €€À"BÐ"8d"
 €€€€€À" €€`" €€`" €€ " €€ " €€à"A¸"8d"
 €€€€€à" €€@" €€@" €€`" €€ " €€ py_xla_callback/1è"MemoryAllocation"MemoryDeallocation"62.CommonPjRtLoadedExecutable::Execute (jit_step)*allocator_name*addr*requested_bytes*allocation_bytes*bytes_allocated*peak_bytes_in_use*bytes_available*dd	GPU_0_bfc*eexla_gpu_host_bfc
D/device:GPU:0#Stream #14(Compute)è"¼"
fusion