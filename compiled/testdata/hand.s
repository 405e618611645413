	.text
	.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"
	.protected	_Z4scalPfS_            ; -- Begin function
	.globl	_Z4scalPfS_
	.p2align	8
	.type	_Z4scalPfS_,@function
_Z4scalPfS_:                            ; @_Z4scalPfS_
; %bb.0:
	s_load_dwordx4 s[0:3], s[4:5], 0x0
	v_lshlrev_b32_e32 v0, 2, v0
	s_waitcnt lgkmcnt(0)
	global_load_dword v1, v0, s[2:3]
	v_cmp_gt_u32_e32 vcc, 64, v0
	s_and_saveexec_b64 s[6:7], vcc
	s_cbranch_execz .LBB0_2
; %bb.1:
	s_waitcnt vmcnt(0)
	v_mul_f64 v[2:3], v[2:3], v[2:3]
	ds_write_b32 v0, v1
.LBB0_2:
	s_or_b64 exec, exec, s[6:7]
	s_waitcnt lgkmcnt(0)
	s_barrier
	global_store_dword v0, v1, s[0:1]
	scratch_store_dword off, v1, s8
	buffer_load_dwordx2 v[2:3], off, s[12:15], 0 offset:8 ; 8-byte Folded Reload
	s_endpgm
.Lfunc_end0:
	.size	_Z4scalPfS_, .Lfunc_end0-_Z4scalPfS_
	.section	.rodata,"a",@progbits
	.amdhsa_kernel _Z4scalPfS_
		.amdhsa_next_free_vgpr 4
	.end_amdhsa_kernel
	.amdgpu_metadata
---
amdhsa.kernels:
  - .args:
      - .address_space:  global
        .name:           decoy
        .offset:         0
        .size:           8
        .value_kind:     global_buffer
    .name:           _Z4scalPfS_
    .private_segment_fixed_size: 16
    .sgpr_count:     12
    .vgpr_count:     9
    .wavefront_size: 64
amdhsa.target:   amdgcn-amd-amdhsa--gfx90a
	.end_amdgpu_metadata
