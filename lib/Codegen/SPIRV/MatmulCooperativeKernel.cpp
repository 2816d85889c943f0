//===- MatmulCooperativeKernel.cpp - tensor-core GEMM kernel --------------===//
//
// The cooperative-matrix kernel (VK_KHR_cooperative_matrix): f16 or bf16
// matmuls into f32 on 16x16x16 fragments, operands staged through
// workgroup memory, with the zero start before (findZeroStart) and the f16
// truncation after the matmul folded into it.
//
//===----------------------------------------------------------------------===//

#include "MatmulKernels.h"

namespace mlir::fx::matmul {

bool isCooperativeMatmul(linalg::LinalgOp op, bool allowBF16,
                         std::string &why) {
  auto matmul = dyn_cast<linalg::MatmulOp>(op.getOperation());
  if (!matmul || matmul.hasUserDefinedMaps()) {
    why = "not a plain linalg.matmul";
    return false;
  }
  auto type = [&](Value v) { return dyn_cast<MemRefType>(v.getType()); };
  MemRefType a = type(op.getDpsInputs()[0]), b = type(op.getDpsInputs()[1]),
             c = type(op.getDpsInits()[0]);
  if (!a || !b || !c || !a.hasStaticShape() || !b.hasStaticShape() ||
      !c.hasStaticShape()) {
    why = "not static buffers";
    return false;
  }
  Type element = a.getElementType();
  bool operands = element == b.getElementType() &&
                  (element.isF16() || (allowBF16 && element.isBF16()));
  if (!operands || !c.getElementType().isF32()) {
    why = allowBF16 ? "not f16 x f16 or bf16 x bf16 into f32"
                    : "not f16 x f16 into f32";
    return false;
  }
  if (!a.getLayout().isIdentity() || !b.getLayout().isIdentity() ||
      !c.getLayout().isIdentity()) {
    why = "not row-major contiguous buffers";
    return false;
  }
  int64_t m = c.getDimSize(0), n = c.getDimSize(1), k = a.getDimSize(1);
  if (m % kSubgroupBlockM || n % kSubgroupBlockN || k % kFrag) {
    why = "M and N must be multiples of 64 and K of 16";
    return false;
  }
  return true;
}

CoopTile chooseCoopTile(int64_t m, int64_t n, int64_t k) {
  return {m % (2 * kSubgroupBlockM) ? 1 : 2, n % (2 * kSubgroupBlockN) ? 1 : 2,
          k % (2 * kFrag) ? kFrag : 2 * kFrag};
}

void buildCooperativeMatmul(linalg::LinalgOp op, const CoopTile &tile,
                            Operation *zeroStart,
                            linalg::GenericOp truncation) {
  Location loc = op.getLoc();
  OpBuilder b(op);
  MLIRContext *ctx = op.getContext();
  Value a = op.getDpsInputs()[0], bm = op.getDpsInputs()[1],
        c = op.getDpsInits()[0];
  auto cType = cast<MemRefType>(c.getType());
  int64_t m = cType.getDimSize(0), n = cType.getDimSize(1),
          k = cast<MemRefType>(a.getType()).getDimSize(1);
  auto cst = [&](OpBuilder &ob, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(ob, loc, v);
  };
  // The operands as flat arrays of 16-byte vectors, so that copies are
  // single 16-byte loads and stores. (A vector.load of f16 lanes would
  // lower to SPIR-V pointer bitcasts, which NVIDIA's compiler rejected.)
  // The host's Vulkan schedule binds the cast's result to the same buffer.
  auto copyType = VectorType::get({4}, IntegerType::get(ctx, 32));
  auto flatView = [&](Value operand, int64_t elements) -> Value {
    return UnrealizedConversionCastOp::create(
               b, loc, MemRefType::get({elements / kHalvesPerCopy}, copyType),
               operand)
        .getResult(0);
  };
  Value aFlat = flatView(a, m * k), bFlat = flatView(bm, k * n);
  Value dFlat =
      truncation ? flatView(truncation.getDpsInits()[0], m * n) : Value();

  Value c1 = cst(b, 1);
  auto launch =
      gpu::LaunchOp::create(b, loc, cst(b, n / tile.n()), cst(b, m / tile.m()),
                            c1, cst(b, tile.threads()), c1, c1);
  OpBuilder body = OpBuilder::atBlockBegin(&launch.getBody().front());
  Value tid = launch.getThreadIds().x;
  Value tileRow = arith::MulIOp::create(body, loc, launch.getBlockIds().y,
                                        cst(body, tile.m()));
  Value tileCol = arith::MulIOp::create(body, loc, launch.getBlockIds().x,
                                        cst(body, tile.n()));

  // Workgroup-memory tiles of A (tile.m x tile.k) and B (tile.k x tile.n),
  // row-major in 16-byte units with one unit of padding per row, which
  // spreads the fragment loads' rows over the banks.
  int64_t aStride = tile.k / kHalvesPerCopy + 1,
          bStride = tile.n() / kHalvesPerCopy + 1;
  auto workgroupTile = [&](int64_t units) -> Value {
    return memref::AllocOp::create(
        body, loc,
        MemRefType::get({units}, copyType, AffineMap(),
                        body.getI64IntegerAttr(kWorkgroupMemorySpace)));
  };
  // One stage of each. Measured on an H200 (f16 4096^3, kernel time):
  // 476 us with 2x2 subgroups and k steps of 32 (18.5 KiB); two stages
  // (37 KiB, one barrier per step instead of two) 869 us, k steps of 64
  // (35 KiB) 763 us: workgroup memory limits how many workgroups share an
  // SM. 2x4 subgroups 501 us, 4x2 527 us, 1x2 643 us, 2x1 688 us, one
  // subgroup 990 us, k steps of 16 719 us.
  Value aTile = workgroupTile(tile.m() * aStride);
  Value bTile = workgroupTile(tile.k * bStride);

  // Copies of one k step: consecutive threads take consecutive 16-byte
  // units of a row, so that device-memory reads coalesce.
  struct Copy {
    Value flat, tile;
    int64_t rowUnits, tileStride, globalStride;
    bool kIsRow; // A's tile rows are output rows, B's are k.
  };
  Copy copies[2] = {{aFlat, aTile, tile.k / kHalvesPerCopy, aStride,
                     k / kHalvesPerCopy, false},
                    {bFlat, bTile, tile.n() / kHalvesPerCopy, bStride,
                     n / kHalvesPerCopy, true}};
  // Calls `fn(copy, row, col)` for each 16-byte unit this thread copies in
  // a k step, in one fixed order: its row and unit column in the tile.
  auto forEachUnit = [&](OpBuilder &ob,
                         function_ref<void(const Copy &, Value, Value)> fn) {
    for (const Copy &copy : copies) {
      int64_t rows = copy.kIsRow ? tile.k : tile.m();
      for (int64_t i = 0; i < rows * copy.rowUnits / tile.threads(); ++i) {
        Value unit =
            arith::AddIOp::create(ob, loc, tid, cst(ob, i * tile.threads()));
        fn(copy, arith::DivUIOp::create(ob, loc, unit, cst(ob, copy.rowUnits)),
           arith::RemUIOp::create(ob, loc, unit, cst(ob, copy.rowUnits)));
      }
    }
  };
  auto loadStep = [&](OpBuilder &ob, Value k0) {
    SmallVector<Value> values;
    forEachUnit(ob, [&](const Copy &copy, Value row, Value col) {
      // Global row and 16-byte column of this unit.
      Value gRow, gCol;
      if (copy.kIsRow) {
        gRow = arith::AddIOp::create(ob, loc, k0, row);
        gCol = arith::AddIOp::create(
            ob, loc,
            arith::DivUIOp::create(ob, loc, tileCol, cst(ob, kHalvesPerCopy)),
            col);
      } else {
        gRow = arith::AddIOp::create(ob, loc, tileRow, row);
        gCol = arith::AddIOp::create(
            ob, loc,
            arith::DivUIOp::create(ob, loc, k0, cst(ob, kHalvesPerCopy)), col);
      }
      Value index = arith::AddIOp::create(
          ob, loc,
          arith::MulIOp::create(ob, loc, gRow, cst(ob, copy.globalStride)),
          gCol);
      values.push_back(memref::LoadOp::create(ob, loc, copy.flat, index));
    });
    return values;
  };
  auto storeStep = [&](OpBuilder &ob, ArrayRef<Value> values) {
    size_t next = 0;
    forEachUnit(ob, [&](const Copy &copy, Value row, Value col) {
      Value index = arith::AddIOp::create(
          ob, loc,
          arith::MulIOp::create(ob, loc, row, cst(ob, copy.tileStride)), col);
      memref::StoreOp::create(ob, loc, values[next++], copy.tile, index);
    });
  };

  SubgroupBlock block = subgroupBlock(body, loc, tid, tile.subgroupsN,
                                      kSubgroupBlockM, kSubgroupBlockN);
  Value subgroup = block.subgroup, blockRow = block.row, blockCol = block.col;
  Type f16 = Float16Type::get(ctx), f32 = Float32Type::get(ctx);
  auto aType = gpu::MMAMatrixType::get({kFrag, kFrag}, f16, "AOp");
  auto bType = gpu::MMAMatrixType::get({kFrag, kFrag}, f16, "BOp");
  auto accType = gpu::MMAMatrixType::get({kFrag, kFrag}, f32, "COp");
  auto plus = [&](OpBuilder &ob, Value base, int64_t offset) -> Value {
    return offset == 0 ? base
                       : arith::AddIOp::create(ob, loc, base, cst(ob, offset))
                             .getResult();
  };
  Value row0 = arith::AddIOp::create(body, loc, tileRow, blockRow);
  Value col0 = arith::AddIOp::create(body, loc, tileCol, blockCol);
  // The accumulators start from the output, as linalg accumulates into
  // its init, or from zero when `zeroStart` (a zero fill or zero copy
  // whose work this kernel makes redundant: it stores every output
  // element) last wrote the output.
  SmallVector<Value> init;
  Value zero;
  if (zeroStart)
    zero = gpu::SubgroupMmaConstantMatrixOp::create(
        body, loc, accType,
        arith::ConstantOp::create(body, loc, body.getF32FloatAttr(0.0f)));
  for (int64_t i = 0; i < kFragsM; ++i)
    for (int64_t j = 0; j < kFragsN; ++j)
      init.push_back(zeroStart
                         ? zero
                         : gpu::SubgroupMmaLoadMatrixOp::create(
                               body, loc, accType, c,
                               ValueRange{plus(body, row0, i * kFrag),
                                          plus(body, col0, j * kFrag)},
                               body.getIndexAttr(n), /*transpose=*/UnitAttr())
                               .getResult());

  // The first k step goes to workgroup memory before the loop; each
  // iteration loads the next step into registers, multiplies the staged
  // one, then replaces it. (The last iteration reloads its own step rather
  // than branch.)
  storeStep(body, loadStep(body, cst(body, 0)));
  gpu::BarrierOp::create(body, loc);
  auto loop = scf::ForOp::create(body, loc, cst(body, 0), cst(body, k),
                                 cst(body, tile.k), init);
  {
    OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
    Value k0 = loop.getInductionVar();
    Value nextK = arith::MinUIOp::create(
        lb, loc, arith::AddIOp::create(lb, loc, k0, cst(lb, tile.k)),
        cst(lb, k - tile.k));
    SmallVector<Value> staged = loadStep(lb, nextK);
    SmallVector<Value> acc(loop.getRegionIterArgs());
    // A fragment (i, kk) starts at tile row blockRow + 16 i, unit kk / 8;
    // a B fragment (kk, j) at row kk, unit (blockCol + 16 j) / 8.
    Value aBase = arith::MulIOp::create(lb, loc, blockRow, cst(lb, aStride));
    Value bBase =
        arith::DivUIOp::create(lb, loc, blockCol, cst(lb, kHalvesPerCopy));
    for (int64_t kk = 0; kk < tile.k; kk += kFrag) {
      SmallVector<Value> aFrags, bFrags;
      for (int64_t i = 0; i < kFragsM; ++i)
        aFrags.push_back(gpu::SubgroupMmaLoadMatrixOp::create(
            lb, loc, aType, aTile,
            ValueRange{
                plus(lb, aBase, i * kFrag * aStride + kk / kHalvesPerCopy)},
            lb.getIndexAttr(aStride), UnitAttr()));
      for (int64_t j = 0; j < kFragsN; ++j)
        bFrags.push_back(gpu::SubgroupMmaLoadMatrixOp::create(
            lb, loc, bType, bTile,
            ValueRange{
                plus(lb, bBase, kk * bStride + j * kFrag / kHalvesPerCopy)},
            lb.getIndexAttr(bStride), UnitAttr()));
      for (int64_t i = 0; i < kFragsM; ++i)
        for (int64_t j = 0; j < kFragsN; ++j)
          acc[i * kFragsN + j] = gpu::SubgroupMmaComputeOp::create(
              lb, loc, accType, aFrags[i], bFrags[j], acc[i * kFragsN + j],
              UnitAttr(), UnitAttr());
    }
    gpu::BarrierOp::create(lb, loc);
    storeStep(lb, staged);
    gpu::BarrierOp::create(lb, loc);
    scf::YieldOp::create(lb, loc, acc);
  }
  if (!truncation) {
    for (int64_t i = 0; i < kFragsM; ++i)
      for (int64_t j = 0; j < kFragsN; ++j)
        gpu::SubgroupMmaStoreMatrixOp::create(
            body, loc, loop.getResult(i * kFragsN + j), c,
            ValueRange{plus(body, row0, i * kFrag),
                       plus(body, col0, j * kFrag)},
            body.getIndexAttr(n), UnitAttr());
  } else {
    // The f16 result goes straight to the truncation's output: fragment by
    // fragment, each subgroup stores its f32 fragment to its own 16x16
    // region of the A tile (4 vectors a row), and each lane converts half
    // a row (two vectors: 8 values) into one 16-byte store. Barriers order
    // the fragment stores, the reads and the next fragment's stores.
    // (The A tile holds at least 64 x 3 units per subgroup row, more than
    // the subgroups' 64 units each.)
    int64_t fragUnits = kFrag * kFrag / 4;
    Value region =
        arith::MulIOp::create(body, loc, subgroup, cst(body, fragUnits));
    Value lane =
        arith::RemUIOp::create(body, loc, tid, cst(body, kSubgroupSize));
    Value laneRow = arith::DivUIOp::create(body, loc, lane, cst(body, 2));
    Value laneHalf = arith::MulIOp::create(
        body, loc, arith::RemUIOp::create(body, loc, lane, cst(body, 2)),
        cst(body, 2));
    Value laneUnit = arith::AddIOp::create(
        body, loc, region,
        arith::AddIOp::create(
            body, loc, arith::MulIOp::create(body, loc, laneRow, cst(body, 4)),
            laneHalf));
    auto f32x4 = VectorType::get({4}, f32);
    auto f16x4 = VectorType::get({4}, f16);
    auto i32x2 = VectorType::get({2}, IntegerType::get(ctx, 32));
    auto half = [&](Value unit) -> Value {
      Value bits = memref::LoadOp::create(body, loc, aTile, unit);
      Value values = arith::BitcastOp::create(body, loc, f32x4, bits);
      Value narrow = arith::TruncFOp::create(body, loc, f16x4, values);
      return vector::BitCastOp::create(body, loc, i32x2, narrow);
    };
    for (int64_t i = 0; i < kFragsM; ++i)
      for (int64_t j = 0; j < kFragsN; ++j) {
        gpu::SubgroupMmaStoreMatrixOp::create(
            body, loc, loop.getResult(i * kFragsN + j), aTile,
            ValueRange{region}, body.getIndexAttr(4), UnitAttr());
        gpu::BarrierOp::create(body, loc);
        Value lo = half(laneUnit), hi = half(plus(body, laneUnit, 1));
        Value packed = vector::ShuffleOp::create(body, loc, lo, hi,
                                                 ArrayRef<int64_t>{0, 1, 2, 3});
        // Output element (row0 + 16 i + laneRow, col0 + 16 j + 8 (lane % 2))
        // in 16-byte units.
        Value row = arith::AddIOp::create(body, loc,
                                          plus(body, row0, i * kFrag), laneRow);
        Value col = arith::AddIOp::create(
            body, loc, plus(body, col0, j * kFrag),
            arith::MulIOp::create(body, loc, laneHalf, cst(body, 4)));
        Value index = arith::DivUIOp::create(
            body, loc,
            arith::AddIOp::create(
                body, loc, arith::MulIOp::create(body, loc, row, cst(body, n)),
                col),
            cst(body, kHalvesPerCopy));
        memref::StoreOp::create(body, loc, packed, dFlat, index);
        gpu::BarrierOp::create(body, loc);
      }
  }
  gpu::TerminatorOp::create(body, loc);
  op->erase();
  if (zeroStart)
    zeroStart->erase();
  if (truncation) {
    truncation->erase();
    // The f32 output is now written by nobody and read by nobody.
    if (auto alloc = c.getDefiningOp<memref::AllocOp>())
      if (llvm::all_of(alloc->getUsers(), [](Operation *user) {
            return isa<memref::DeallocOp>(user);
          })) {
        for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
          user->erase();
        alloc->erase();
      }
  }
}

linalg::GenericOp truncationAfter(linalg::LinalgOp op) {
  Value c = op.getDpsInits()[0];
  auto generic = dyn_cast_or_null<linalg::GenericOp>(op->getNextNode());
  if (!generic || generic.getNumDpsInputs() != 1 ||
      generic.getNumDpsInits() != 1 || generic.getDpsInputs()[0] != c ||
      generic.getNumReductionLoops() != 0 ||
      !llvm::all_of(generic.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isIdentity(); }))
    return nullptr;
  auto d = dyn_cast<MemRefType>(generic.getDpsInits()[0].getType());
  if (!d || !d.getElementType().isF16() || !d.getLayout().isIdentity() ||
      d.getShape() != cast<MemRefType>(c.getType()).getShape())
    return nullptr;
  Block &body = generic.getRegion().front();
  auto trunc = dyn_cast<arith::TruncFOp>(&body.front());
  if (!trunc || trunc.getIn() != body.getArgument(0) ||
      body.getTerminator()->getOperand(0) != trunc.getResult() ||
      trunc->getNextNode() != body.getTerminator())
    return nullptr;
  // Only allocation, fill, matmul, truncation and deallocation touch c.
  auto alloc = c.getDefiningOp<memref::AllocOp>();
  if (!alloc)
    return nullptr;
  for (Operation *user : c.getUsers())
    if (user != op && user != generic &&
        !isa<linalg::FillOp, memref::DeallocOp>(user))
      return nullptr;
  return generic;
}

} // namespace mlir::fx::matmul
