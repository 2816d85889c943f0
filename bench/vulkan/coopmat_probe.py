#!/usr/bin/env python3
"""GEMM kernels of workgroup-scope cooperative matrices, timed on a device.

Usage: python3 bench/vulkan/coopmat_probe.py prepare [--out DIR] [--glslang G]
       python3 bench/vulkan/coopmat_probe.py measure [--dir DIR]

`prepare` (on the build machine) writes SPIR-V kernels for C[M,N] f32 =
A[M,K] * B[K,N] f16 through MLIR's SPIR-V dialect (mlir-translate
--serialize-spirv): one workgroup per BM x BN tile of C, each k step one
`spirv.KHR.CooperativeMatrixLoad` of a BM x BK block of A and a BK x BN
block of B at Workgroup scope (VK_NV_cooperative_matrix2 lets a whole
workgroup hold one matrix; the driver splits it between subgroups and
stages it), one MulAdd. It also builds the harness, coopmat_probe.cpp, and
an fx-compile artifact of the same f16 matmul through the compiler's own
subgroup-scope GEMM kernel, as the baseline. With --glslang (a glslang of
2024 or later; Debian's 12 is too old) it also compiles GLSL kernels that
load their blocks by tensor layouts (coopMatLoadTensorNV), which MLIR's
SPIR-V dialect cannot express.

`measure` (on the GPU machine) prints the device's cooperative matrix 2
features and flexible dimensions, then each kernel's median GPU time,
TFLOP/s and the error of sampled outputs against float64 sums, then the
compiler's artifact through fxrt-run --profile.
"""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SIZE = 4096
# (BM, BN, BK, invocations)
VARIANTS = [
    (128, 128, 32, 256),
    (128, 128, 32, 128),
    (128, 256, 32, 256),
    (256, 128, 32, 256),
    (128, 128, 64, 256),
    (64, 64, 32, 128),
]
# Kernels staged through workgroup memory (staged_kernel).
STAGED = [
    (128, 128, 32, 128),
    (128, 128, 32, 256),
    (128, 256, 32, 256),
    (128, 128, 64, 256),
]


def kernel(bm, bn, bk, invocations, n=SIZE, k=SIZE):
    a_t = f"!spirv.coopmatrix<{bm}x{bk}xf16, Workgroup, MatrixA>"
    b_t = f"!spirv.coopmatrix<{bk}x{bn}xf16, Workgroup, MatrixB>"
    c_t = f"!spirv.coopmatrix<{bm}x{bn}xf32, Workgroup, MatrixAcc>"
    buf16 = "!spirv.ptr<!spirv.struct<(!spirv.rtarray<f16, stride=2> [0])>, StorageBuffer>"
    buf32 = "!spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0])>, StorageBuffer>"
    return f"""spirv.module Logical Vulkan requires #spirv.vce<v1.6, [Shader, Float16, StorageBuffer16BitAccess, CooperativeMatrixKHR, VulkanMemoryModel], [SPV_KHR_cooperative_matrix, SPV_KHR_vulkan_memory_model, SPV_KHR_16bit_storage]> {{
  spirv.GlobalVariable @A bind(0, 0) : {buf16}
  spirv.GlobalVariable @B bind(0, 1) : {buf16}
  spirv.GlobalVariable @C bind(0, 2) : {buf32}
  spirv.GlobalVariable @wgid built_in("WorkgroupId") : !spirv.ptr<vector<3xi32>, Input>
  spirv.func @main() "None" {{
    %c0 = spirv.Constant 0 : i32
    %bk = spirv.Constant {bk} : i32
    %kk = spirv.Constant {k} : i32
    %nn = spirv.Constant {n} : i32
    %bm = spirv.Constant {bm} : i32
    %bn = spirv.Constant {bn} : i32
    %zero = spirv.Constant 0.0 : f32
    %ids = spirv.mlir.addressof @wgid : !spirv.ptr<vector<3xi32>, Input>
    %id = spirv.Load "Input" %ids : vector<3xi32>
    %x = spirv.CompositeExtract %id[0 : i32] : vector<3xi32>
    %y = spirv.CompositeExtract %id[1 : i32] : vector<3xi32>
    %m0 = spirv.IMul %y, %bm : i32
    %n0 = spirv.IMul %x, %bn : i32
    %a = spirv.mlir.addressof @A : {buf16}
    %b = spirv.mlir.addressof @B : {buf16}
    %c = spirv.mlir.addressof @C : {buf32}
    %arow = spirv.IMul %m0, %kk : i32
    %acc0 = spirv.CompositeConstruct %zero : (f32) -> {c_t}
    %kv = spirv.Variable init(%c0) : !spirv.ptr<i32, Function>
    %accv = spirv.Variable : !spirv.ptr<{c_t}, Function>
    spirv.Store "Function" %accv, %acc0 : {c_t}
    spirv.mlir.loop {{
      spirv.Branch ^header
    ^header:
      %k = spirv.Load "Function" %kv : i32
      %more = spirv.SLessThan %k, %kk : i32
      spirv.BranchConditional %more, ^body, ^merge
    ^body:
      %aoff = spirv.IAdd %arow, %k : i32
      %pa = spirv.AccessChain %a[%c0, %aoff] : {buf16}, i32, i32 -> !spirv.ptr<f16, StorageBuffer>
      %ma = spirv.KHR.CooperativeMatrixLoad %pa, %kk, <RowMajor> : !spirv.ptr<f16, StorageBuffer>, i32 -> {a_t}
      %brow = spirv.IMul %k, %nn : i32
      %boff = spirv.IAdd %brow, %n0 : i32
      %pb = spirv.AccessChain %b[%c0, %boff] : {buf16}, i32, i32 -> !spirv.ptr<f16, StorageBuffer>
      %mb = spirv.KHR.CooperativeMatrixLoad %pb, %nn, <RowMajor> : !spirv.ptr<f16, StorageBuffer>, i32 -> {b_t}
      %acc = spirv.Load "Function" %accv : {c_t}
      %sum = spirv.KHR.CooperativeMatrixMulAdd %ma, %mb, %acc : {a_t}, {b_t} -> {c_t}
      spirv.Store "Function" %accv, %sum : {c_t}
      %next = spirv.IAdd %k, %bk : i32
      spirv.Store "Function" %kv, %next : i32
      spirv.Branch ^header
    ^merge:
      spirv.mlir.merge
    }}
    %result = spirv.Load "Function" %accv : {c_t}
    %crow = spirv.IMul %m0, %nn : i32
    %coff = spirv.IAdd %crow, %n0 : i32
    %pc = spirv.AccessChain %c[%c0, %coff] : {buf32}, i32, i32 -> !spirv.ptr<f32, StorageBuffer>
    spirv.KHR.CooperativeMatrixStore %pc, %result, %nn, <RowMajor> : !spirv.ptr<f32, StorageBuffer>, {c_t}, i32
    spirv.Return
  }}
  spirv.EntryPoint "GLCompute" @main, @wgid, @A, @B, @C
  spirv.ExecutionMode @main "LocalSize", {invocations}, 1, 1
}}
"""


def staged_kernel(bm, bn, bk, invocations, n=SIZE, k=SIZE):
    """As `kernel`, but each k step's blocks go through workgroup memory:
    every invocation copies 16-byte units of A's and B's blocks (loaded one
    step ahead into registers), then the workgroup-scope loads read them
    from there."""
    a_t = f"!spirv.coopmatrix<{bm}x{bk}xf16, Workgroup, MatrixA>"
    b_t = f"!spirv.coopmatrix<{bk}x{bn}xf16, Workgroup, MatrixB>"
    c_t = f"!spirv.coopmatrix<{bm}x{bn}xf32, Workgroup, MatrixAcc>"
    v4 = "vector<4xi32>"
    buf4 = f"!spirv.ptr<!spirv.struct<(!spirv.rtarray<{v4}, stride=16> [0])>, StorageBuffer>"
    buf32 = "!spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0])>, StorageBuffer>"
    ua, ub = bm * bk // 8, bk * bn // 8  # 16-byte units per block
    sa_t = f"!spirv.ptr<!spirv.array<{ua} x {v4}>, Workgroup>"
    sb_t = f"!spirv.ptr<!spirv.array<{ub} x {v4}>, Workgroup>"
    ra, rb = ua // invocations, ub // invocations
    lines = []
    emit = lines.append

    def const(v):
        name = f"%k{v}"
        if name not in consts:
            consts[name] = f"    {name} = spirv.Constant {v} : i32"
        return name
    consts = {}

    def global_units(block, kvar, tag):
        # The global unit index of each of this invocation's units.
        out = []
        for i in range(ra if block == "a" else rb):
            e = f"%{tag}{block}e{i}"
            emit(f"      {e} = spirv.IAdd %tid, {const(i * invocations)} : i32")
            if block == "a":
                per = bk // 8
                emit(f"      %{tag}ar{i} = spirv.UDiv {e}, {const(per)} : i32")
                emit(f"      %{tag}aj{i} = spirv.UMod {e}, {const(per)} : i32")
                emit(f"      %{tag}arow{i} = spirv.IAdd %m0, %{tag}ar{i} : i32")
                emit(f"      %{tag}abase{i} = spirv.IMul %{tag}arow{i}, {const(k // 8)} : i32")
                emit(f"      %{tag}ak8{i} = spirv.UDiv {kvar}, {const(8)} : i32")
                emit(f"      %{tag}ag0{i} = spirv.IAdd %{tag}abase{i}, %{tag}ak8{i} : i32")
                emit(f"      %{tag}ag{i} = spirv.IAdd %{tag}ag0{i}, %{tag}aj{i} : i32")
                out.append(f"%{tag}ag{i}")
            else:
                per = bn // 8
                emit(f"      %{tag}br{i} = spirv.UDiv {e}, {const(per)} : i32")
                emit(f"      %{tag}bj{i} = spirv.UMod {e}, {const(per)} : i32")
                emit(f"      %{tag}brow{i} = spirv.IAdd {kvar}, %{tag}br{i} : i32")
                emit(f"      %{tag}bbase{i} = spirv.IMul %{tag}brow{i}, {const(n // 8)} : i32")
                emit(f"      %{tag}bg0{i} = spirv.IAdd %{tag}bbase{i}, %n08 : i32")
                emit(f"      %{tag}bg{i} = spirv.IAdd %{tag}bg0{i}, %{tag}bj{i} : i32")
                out.append(f"%{tag}bg{i}")
        return out

    def load_regs(kvar, tag):
        for block, buf in (("a", "%a"), ("b", "%b")):
            for i, g in enumerate(global_units(block, kvar, tag)):
                emit(f"      %{tag}{block}p{i} = spirv.AccessChain {buf}[%c0, {g}] : {buf4}, i32, i32 -> !spirv.ptr<{v4}, StorageBuffer>")
                emit(f"      %{tag}{block}v{i} = spirv.Load \"StorageBuffer\" %{tag}{block}p{i} : {v4}")
                emit(f"      spirv.Store \"Function\" %reg{block}{i}, %{tag}{block}v{i} : {v4}")

    # Prologue: registers for k = 0.
    load_regs("%c0", "p")
    prologue = lines[:]
    lines.clear()
    # Loop body.
    for block, count, shared, st in (("a", ra, "%sa", sa_t), ("b", rb, "%sb", sb_t)):
        for i in range(count):
            emit(f"      %s{block}x{i} = spirv.IAdd %tid, {const(i * invocations)} : i32")
            emit(f"      %s{block}q{i} = spirv.AccessChain {shared}[%s{block}x{i}] : {st}, i32 -> !spirv.ptr<{v4}, Workgroup>")
            emit(f"      %s{block}r{i} = spirv.Load \"Function\" %reg{block}{i} : {v4}")
            emit(f"      spirv.Store \"Workgroup\" %s{block}q{i}, %s{block}r{i} : {v4}")
    emit("      spirv.ControlBarrier <Workgroup>, <Workgroup>, <AcquireRelease|WorkgroupMemory>")
    emit(f"      %knext0 = spirv.IAdd %k, {const(bk)} : i32")
    emit(f"      %knext = spirv.GL.UMin %knext0, {const(k - bk)} : i32")
    load_regs("%knext", "n")
    emit(f"      %sa0 = spirv.AccessChain %sa[%c0] : {sa_t}, i32 -> !spirv.ptr<{v4}, Workgroup>")
    emit(f"      %sb0 = spirv.AccessChain %sb[%c0] : {sb_t}, i32 -> !spirv.ptr<{v4}, Workgroup>")
    emit(f"      %ma = spirv.KHR.CooperativeMatrixLoad %sa0, {const(bk // 8)}, <RowMajor> : !spirv.ptr<{v4}, Workgroup>, i32 -> {a_t}")
    emit(f"      %mb = spirv.KHR.CooperativeMatrixLoad %sb0, {const(bn // 8)}, <RowMajor> : !spirv.ptr<{v4}, Workgroup>, i32 -> {b_t}")
    emit(f"      %acc = spirv.Load \"Function\" %accv : {c_t}")
    emit(f"      %sum = spirv.KHR.CooperativeMatrixMulAdd %ma, %mb, %acc : {a_t}, {b_t} -> {c_t}")
    emit(f"      spirv.Store \"Function\" %accv, %sum : {c_t}")
    emit("      spirv.ControlBarrier <Workgroup>, <Workgroup>, <AcquireRelease|WorkgroupMemory>")
    emit(f"      %kstep = spirv.IAdd %k, {const(bk)} : i32")
    emit("      spirv.Store \"Function\" %kv, %kstep : i32")
    body = lines[:]
    regs = [f"    %reg{b}{i} = spirv.Variable : !spirv.ptr<{v4}, Function>"
            for b, c in (("a", ra), ("b", rb)) for i in range(c)]
    return "\n".join([
        "spirv.module Logical Vulkan requires #spirv.vce<v1.6, [Shader, Float16, StorageBuffer16BitAccess, CooperativeMatrixKHR, VulkanMemoryModel], [SPV_KHR_cooperative_matrix, SPV_KHR_vulkan_memory_model, SPV_KHR_16bit_storage]> {",
        f"  spirv.GlobalVariable @A bind(0, 0) : {buf4}",
        f"  spirv.GlobalVariable @B bind(0, 1) : {buf4}",
        f"  spirv.GlobalVariable @C bind(0, 2) : {buf32}",
        f"  spirv.GlobalVariable @SA : {sa_t}",
        f"  spirv.GlobalVariable @SB : {sb_t}",
        "  spirv.GlobalVariable @wgid built_in(\"WorkgroupId\") : !spirv.ptr<vector<3xi32>, Input>",
        "  spirv.GlobalVariable @lid built_in(\"LocalInvocationIndex\") : !spirv.ptr<i32, Input>",
        "  spirv.func @main() \"None\" {",
        "    %c0 = spirv.Constant 0 : i32",
        "    %zero = spirv.Constant 0.0 : f32",
        f"    %bm = spirv.Constant {bm} : i32",
        f"    %bn = spirv.Constant {bn} : i32",
        f"    %kk = spirv.Constant {k} : i32",
        f"    %nn = spirv.Constant {n} : i32",
        *consts.values(),
        "    %kv = spirv.Variable init(%c0) : !spirv.ptr<i32, Function>",
        f"    %accv = spirv.Variable : !spirv.ptr<{c_t}, Function>",
        *regs,
        "    %ids = spirv.mlir.addressof @wgid : !spirv.ptr<vector<3xi32>, Input>",
        "    %id = spirv.Load \"Input\" %ids : vector<3xi32>",
        "    %x = spirv.CompositeExtract %id[0 : i32] : vector<3xi32>",
        "    %y = spirv.CompositeExtract %id[1 : i32] : vector<3xi32>",
        "    %lids = spirv.mlir.addressof @lid : !spirv.ptr<i32, Input>",
        "    %tid = spirv.Load \"Input\" %lids : i32",
        "    %m0 = spirv.IMul %y, %bm : i32",
        "    %n0 = spirv.IMul %x, %bn : i32",
        f"    %n08 = spirv.UDiv %n0, {const(8)} : i32",
        f"    %a = spirv.mlir.addressof @A : {buf4}",
        f"    %b = spirv.mlir.addressof @B : {buf4}",
        f"    %c = spirv.mlir.addressof @C : {buf32}",
        f"    %sa = spirv.mlir.addressof @SA : {sa_t}",
        f"    %sb = spirv.mlir.addressof @SB : {sb_t}",
        f"    %acc0 = spirv.CompositeConstruct %zero : (f32) -> {c_t}",
        f"    spirv.Store \"Function\" %accv, %acc0 : {c_t}",
        *[l[2:] for l in prologue],
        "    spirv.mlir.loop {",
        "      spirv.Branch ^header",
        "    ^header:",
        "      %k = spirv.Load \"Function\" %kv : i32",
        "      %more = spirv.SLessThan %k, %kk : i32",
        "      spirv.BranchConditional %more, ^body, ^merge",
        "    ^body:",
        *body,
        "      spirv.Branch ^header",
        "    ^merge:",
        "      spirv.mlir.merge",
        "    }",
        f"    %result = spirv.Load \"Function\" %accv : {c_t}",
        "    %crow = spirv.IMul %m0, %nn : i32",
        "    %coff = spirv.IAdd %crow, %n0 : i32",
        f"    %pc = spirv.AccessChain %c[%c0, %coff] : {buf32}, i32, i32 -> !spirv.ptr<f32, StorageBuffer>",
        f"    spirv.KHR.CooperativeMatrixStore %pc, %result, %nn, <RowMajor> : !spirv.ptr<f32, StorageBuffer>, {c_t}, i32",
        "    spirv.Return",
        "  }",
        "  spirv.EntryPoint \"GLCompute\" @main, @wgid, @lid, @A, @B, @C, @SA, @SB",
        f"  spirv.ExecutionMode @main \"LocalSize\", {invocations}, 1, 1",
        "}",
        ""])


# Kernels of tensor-layout loads (tensor_kernel, GLSL through glslang):
# (BM, BN, BK, invocations, B transposed[, next step prefetched]).
TENSOR = [
    (128, 128, 32, 256, False, True),
    (128, 128, 32, 128, False, True),
    (128, 256, 32, 256, False, True),
    (256, 128, 32, 256, False, True),
    (128, 128, 64, 256, False, True),
    (128, 256, 64, 256, False, True),
    (128, 256, 32, 256, True, True),
    (128, 128, 32, 256, False),
    (128, 128, 32, 128, False),
    (128, 256, 32, 256, False),
    (256, 128, 32, 256, False),
    (128, 128, 64, 256, False),
    (128, 128, 32, 256, True),
    (128, 256, 32, 256, True),
    (256, 128, 32, 256, True),
    (128, 128, 64, 256, True),
]


def tensor_kernel(bm, bn, bk, invocations, transposed_b, prefetch=False,
                  m=SIZE, n=SIZE, k=SIZE):
    """GLSL of the same GEMM loading its blocks by tensor layouts
    (GL_NV_cooperative_matrix2's coopMatLoadTensorNV, which MLIR's SPIR-V
    dialect cannot express): the driver sees a whole BM x BK block of a
    2-d tensor at once and may copy it asynchronously. With transposed_b
    B is stored [N, K] and read through a transposing tensor view."""
    if transposed_b:
        b_layout = f"setTensorLayoutDimensionNV(createTensorLayoutNV(2), {n}, {k})"
        b_load = ("coopMatLoadTensorNV(mb, b, 0, sliceTensorLayoutNV(tB, n0, "
                  f"{bn}, kk, {bk}), transposeView);")
    else:
        b_layout = f"setTensorLayoutDimensionNV(createTensorLayoutNV(2), {k}, {n})"
        b_load = ("coopMatLoadTensorNV(mb, b, 0, sliceTensorLayoutNV(tB, kk, "
                  f"{bk}, n0, {bn}));")
    a_load = ("coopMatLoadTensorNV(ma, a, 0, sliceTensorLayoutNV(tA, m0, "
              f"{bm}, kk, {bk}));")
    decl = (f"coopmat<float16_t, gl_ScopeWorkgroup, {bm}, {bk}, gl_MatrixUseA> ma;\n"
            f"    coopmat<float16_t, gl_ScopeWorkgroup, {bk}, {bn}, gl_MatrixUseB> mb;")
    if prefetch:
        # The next step's blocks are loaded before this step's product.
        loop = f"""  uint kk = 0;
  {decl}
  {a_load}
  {b_load}
  for (kk = {bk}; kk < {k}; kk += {bk}) {{
    coopmat<float16_t, gl_ScopeWorkgroup, {bm}, {bk}, gl_MatrixUseA> pa = ma;
    coopmat<float16_t, gl_ScopeWorkgroup, {bk}, {bn}, gl_MatrixUseB> pb = mb;
    {a_load}
    {b_load}
    acc = coopMatMulAdd(pa, pb, acc);
  }}
  acc = coopMatMulAdd(ma, mb, acc);"""
    else:
        loop = f"""  for (uint kk = 0; kk < {k}; kk += {bk}) {{
    {decl}
    {a_load}
    {b_load}
    acc = coopMatMulAdd(ma, mb, acc);
  }}"""
    return f"""#version 450
#extension GL_KHR_memory_scope_semantics : enable
#extension GL_KHR_cooperative_matrix : enable
#extension GL_NV_cooperative_matrix2 : enable
#extension GL_EXT_shader_explicit_arithmetic_types : enable
#extension GL_EXT_shader_16bit_storage : enable

layout(local_size_x = {invocations}) in;
layout(std430, binding = 0) readonly buffer BufA {{ float16_t a[]; }};
layout(std430, binding = 1) readonly buffer BufB {{ float16_t b[]; }};
layout(std430, binding = 2) writeonly buffer BufC {{ float c[]; }};

void main() {{
  uint m0 = gl_WorkGroupID.y * {bm};
  uint n0 = gl_WorkGroupID.x * {bn};
  tensorLayoutNV<2> tA = setTensorLayoutDimensionNV(createTensorLayoutNV(2), {m}, {k});
  tensorLayoutNV<2> tB = {b_layout};
  tensorLayoutNV<2> tC = setTensorLayoutDimensionNV(createTensorLayoutNV(2), {m}, {n});
  tensorViewNV<2, false, 1, 0> transposeView = createTensorViewNV(2, false, 1, 0);
  coopmat<float, gl_ScopeWorkgroup, {bm}, {bn}, gl_MatrixUseAccumulator> acc =
      coopmat<float, gl_ScopeWorkgroup, {bm}, {bn}, gl_MatrixUseAccumulator>(0.0);
{loop}
  coopMatStoreTensorNV(acc, c, 0, sliceTensorLayoutNV(tC, m0, {bm}, n0, {bn}));
}}
"""


MATMUL = """func.func @mm(%a: tensor<{n}x{n}xf16>, %b: tensor<{n}x{n}xf16>) -> tensor<{n}x{n}xf16> {{
  %0 = fx.mm %a, %b : (tensor<{n}x{n}xf16>, tensor<{n}x{n}xf16>) -> tensor<{n}x{n}xf16>
  return %0 : tensor<{n}x{n}xf16>
}}
"""


def prepare(args):
    out = args.out
    os.makedirs(out, exist_ok=True)
    translate = "/usr/lib/llvm-22/bin/mlir-translate"
    names = []
    for (bm, bn, bk, inv), staged in [(v, False) for v in VARIANTS] + \
            [(v, True) for v in STAGED]:
        name = f"{'st' if staged else 'wg'}_{bm}x{bn}x{bk}_{inv}"
        mlir = os.path.join(out, name + ".mlir")
        with open(mlir, "w") as f:
            f.write((staged_kernel if staged else kernel)(bm, bn, bk, inv))
        subprocess.run([translate, "--serialize-spirv", "--no-implicit-module",
                        mlir, "-o", os.path.join(out, name + ".spv")],
                       check=True)
        names.append(f"{name} {bm} {bn}")
    if args.glslang:
        for bm, bn, bk, inv, bt, *pf in TENSOR:
            pf = bool(pf and pf[0])
            name = (f"tl{'t' if bt else ''}{'p' if pf else ''}_"
                    f"{bm}x{bn}x{bk}_{inv}")
            comp = os.path.join(out, name + ".comp")
            with open(comp, "w") as f:
                f.write(tensor_kernel(bm, bn, bk, inv, bt, pf))
            subprocess.run([args.glslang, "-V", "--target-env", "vulkan1.3",
                            comp, "-o", os.path.join(out, name + ".spv")],
                           check=True, stdout=subprocess.DEVNULL)
            names.append(f"{name} {bm} {bn}" + (" bt" if bt else ""))
    else:
        print("no --glslang: skipping the tensor-layout kernels")
    with open(os.path.join(out, "kernels.txt"), "w") as f:
        f.write("\n".join(names) + "\n")
    subprocess.run(["clang++-22", "-O2", "-std=c++17", "-I",
                    os.path.join(ROOT, "lib", "Runtime", "Vulkan"), "-I",
                    os.path.join(ROOT, "include"),
                    os.path.join(HERE, "coopmat_probe.cpp"), "-o",
                    os.path.join(out, "coopmat_probe"), "-ldl"], check=True)
    mm = os.path.join(out, "mm.mlir")
    with open(mm, "w") as f:
        f.write(MATMUL.format(n=SIZE))
    build = os.path.join(ROOT, "build", "bin")
    subprocess.run([os.path.join(build, "fx-compile"), mm, "--target",
                    "vulkan", "--vulkan-target", "nvidia-h200", "-o",
                    os.path.join(out, "mm.fxa")], check=True)
    subprocess.run(["cp", os.path.join(build, "fxrt-run"), out], check=True)
    print(f"wrote {len(names)} kernels, the harness and mm.fxa to {out}")


def measure(args):
    d = args.dir
    probe = os.path.join(d, "coopmat_probe")
    subprocess.run([probe, "--list"], check=False)
    for line in open(os.path.join(d, "kernels.txt")):
        name, bm, bn, *rest = line.split()
        subprocess.run([probe, os.path.join(d, name + ".spv"), str(SIZE),
                        str(SIZE), str(SIZE), bm, bn, str(args.runs), *rest],
                       check=False)
    subprocess.run([os.path.join(d, "fxrt-run"), os.path.join(d, "mm.fxa"),
                    "--bench", str(args.runs), "--profile"], check=False)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("--out", default=os.path.join(HERE, "artifacts-probe"))
    p.add_argument("--glslang", help="a glslang recent enough for "
                   "GL_NV_cooperative_matrix2 (15.0 or later) to compile the "
                   "tensor-layout kernels; without it they are skipped")
    m = sub.add_parser("measure")
    m.add_argument("--dir", default=os.path.join(HERE, "artifacts-probe"))
    m.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    (prepare if args.cmd == "prepare" else measure)(args)


if __name__ == "__main__":
    sys.exit(main())
