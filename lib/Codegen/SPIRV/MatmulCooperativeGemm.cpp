//===- MatmulCooperativeGemm.cpp - tensor-core implicit GEMM --------------===//
//
// The general cooperative-matrix kernel: any GEMM view with static sizes
// (a convolution as an implicit GEMM, a linear layer's transposed weight,
// a batched matmul) on 16x16x16 fragments with f32 accumulators.
//
// Per k step the workgroup stages both operand tiles in workgroup memory as
// 16-byte units of eight 16-bit values. Each unit holds eight neighbours
// along the operand's innermost dimension in memory (k, or the rows /
// columns), so that neighbouring threads' loads coalesce; the tile is then
// row- or column-major for the fragment loads. Elements are loaded one by
// one through the op's indexing maps (with the padding and bounds checks
// of GemmFusion), converted to the fragments' type per the precision, and
// packed. The next step's units are loaded into registers while the
// current step's fragments multiply.
//
// The accumulators leave through workgroup memory, a 16x16 fragment per
// subgroup at a time: each lane takes eight elements, adds the output's
// initial value (unless it is zero), applies the fused epilogue and stores
// with the op's output indexing (any layout, partial tiles guarded).
//
//===----------------------------------------------------------------------===//

#include "MatmulKernels.h"

#include "mlir/Interfaces/ViewLikeInterface.h"

std::optional<mlir::fx::MatmulPrecision>
mlir::fx::parseMatmulPrecision(StringRef text) {
  return llvm::StringSwitch<std::optional<MatmulPrecision>>(text)
      .Case("highest", MatmulPrecision::Highest)
      .Case("high", MatmulPrecision::High)
      .Case("medium", MatmulPrecision::Medium)
      .Default(std::nullopt);
}

namespace mlir::fx::matmul {

/// Output tiles that fill an H200 (132 SMs).
constexpr int64_t kCoopMinTiles = 132;

FailureOr<CoopGemmConfig> chooseCoopGemm(linalg::LinalgOp op,
                                         const GemmView &view,
                                         Precision precision, bool allowBF16,
                                         std::string &why) {
  auto fail = [&](const Twine &reason) {
    why = reason.str();
    return failure();
  };
  if (view.rows.isDynamic() || view.cols.isDynamic() || view.batch.isDynamic())
    return fail("dynamic sizes");
  Type a = getElementTypeOrSelf(op.getDpsInputs()[0].getType());
  Type b = getElementTypeOrSelf(op.getDpsInputs()[1].getType());
  Type c = getElementTypeOrSelf(op.getDpsInits()[0].getType());
  if (a != b || !(a.isF32() || a.isF16()) || !(c.isF32() || c.isF16()))
    return fail("not f32 or f16 operands into f32 or f16");
  CoopGemmConfig config;
  config.precision = precision;
  if (a.isF32()) {
    if (precision == Precision::Highest)
      return fail("f32 operands at precision 'highest'");
    if (precision == Precision::High && !allowBF16)
      return fail("precision 'high' needs bf16 fragments");
    config.bf16 = allowBF16;
  } else {
    config.bf16 = false;
    config.precision = Precision::Medium; // f16 as it is
  }
  int64_t batch = view.batch.size(), rows = view.rows.size(),
          cols = view.cols.size();
  auto tiles = [&](int64_t m, int64_t n) {
    return batch * llvm::divideCeil(rows, m) * llvm::divideCeil(cols, n);
  };
  // Matmuls (both operands read through flat views along k) take 4x4
  // fragments per subgroup (128x128 tiles) while those fill an H200's 132
  // SMs; convolutions, whose implicit-GEMM loads keep more index
  // arithmetic live, 2x2 (64x64 tiles). Measured on an H200 at precision
  // high, GPU time: a 3x3 convolution 32x64x56x56 -> 64 0.455 ms with 4x4
  // fragments, 0.293 with 2x2; resnet50 at batch 32 21.6 and 13.9 ms; a
  // 4096^3 linear layer 4.55 and 6.09 ms. Fewer 64x64 tiles than SMs and
  // the SIMT kernel's split-k spreads the work better (a transformer
  // encoder 8x128x256: 0.50 -> 0.40 ms with its 1024x256 linear layers
  // there).
  bool flatOperands = linalg::isaContractionOpInterface(op);
  if (!flatOperands || tiles(128, 128) < kCoopMinTiles) {
    config.fragsM = config.fragsN = 2;
    if (tiles(64, 64) < kCoopMinTiles)
      return fail("only " + Twine(tiles(64, 64)) + " 64x64 output tiles");
  }
  // bf16x3 stages two tiles per operand: half the k step keeps workgroup
  // memory near 20 KiB (and a k step of 32 at high measured slower on an
  // H200: resnet50 at batch 32 13.9 -> 16.2 ms).
  config.k = config.precision == Precision::High ? 16 : 32;
  return config;
}

namespace {
/// One operand's staging: `count` elements of `group` per k step of
/// `kStep`, in units of 8 along k (`alongK`) or along the group.
struct Staging {
  unsigned operand;
  const Group *group;
  int64_t count, kStep;
  bool alongK;
  /// 16-byte units per tile row, padding included: a tile row is one of
  /// the `count` elements (alongK) or one k (else).
  int64_t stride() const { return (alongK ? kStep : count) / 8 + 1; }
  int64_t rowsOfTile() const { return alongK ? count : kStep; }
  int64_t units() const { return count * kStep / 8; }
  int64_t unitsPerRow() const { return (alongK ? kStep : count) / 8; }
};
} // namespace

void GemmKernelBuilder::buildCooperative(const CoopGemmConfig &config) {
  MLIRContext *ctx = op.getContext();
  OpBuilder b(op);
  bool high = config.precision == Precision::High;
  bool convertF32 = getElementTypeOrSelf(op.getDpsInputs()[0]).isF32();
  Value c1 = cst(b, 1);
  Location launchLoc =
      config.bf16 ? Location(FusedLoc::get(
                        ctx, {loc}, StringAttr::get(ctx, kBF16FragmentsMarker)))
                  : loc;
  auto launch = gpu::LaunchOp::create(
      b, launchLoc, cst(b, llvm::divideCeil(view.cols.size(), config.n())),
      cst(b, llvm::divideCeil(view.rows.size(), config.m())),
      cst(b, view.batch.size()), cst(b, config.threads()), c1, c1);
  OpBuilder body = OpBuilder::atBlockBegin(&launch.getBody().front());
  threadId = launch.getThreadIds().x;
  zero = cst(body, 0);
  extents.assign(op.getNumLoops(), Value());
  batchLoops.assign(op.getNumLoops(), Value());
  if (!view.batch.loops.empty())
    setLoops(body, view.batch, launch.getBlockIds().z, batchLoops);
  Value tileRow = arith::MulIOp::create(body, loc, launch.getBlockIds().y,
                                        cst(body, config.m()));
  Value tileCol = arith::MulIOp::create(body, loc, launch.getBlockIds().x,
                                        cst(body, config.n()));

  unsigned rowOperand = view.rowOperand, colOperand = 1 - view.rowOperand;
  // Units run along an operand's innermost dimension in memory: k when it
  // moves with the reduction's innermost loop and not with its group's.
  auto alongK = [&](unsigned operand, const Group &group) {
    return isInnermost(operand, view.reduction) && !isInnermost(operand, group);
  };
  Staging staging[2] = {{rowOperand, &view.rows, config.m(), config.k,
                         alongK(rowOperand, view.rows)},
                        {colOperand, &view.cols, config.n(), config.k,
                         alongK(colOperand, view.cols)}};

  auto copyType = VectorType::get({4}, IntegerType::get(ctx, 32));
  auto workgroupTile = [&](int64_t units) -> Value {
    return memref::AllocOp::create(
        body, loc,
        MemRefType::get({units}, copyType, AffineMap(),
                        body.getI64IntegerAttr(kWorkgroupMemorySpace)));
  };
  // Tiles: [operand][part] (part 1: bf16x3's low halves).
  Value tiles[2][2];
  for (int s = 0; s < 2; ++s)
    for (int part = 0; part < (high ? 2 : 1); ++part)
      tiles[s][part] =
          workgroupTile(staging[s].rowsOfTile() * staging[s].stride());
  // Each subgroup's 16x16 f32 fragment on its way out.
  Value outTile =
      workgroupTile(config.subgroupsM * config.subgroupsN * kFrag * 4);

  Type f32 = Float32Type::get(ctx), i32 = IntegerType::get(ctx, 32);
  auto i32c = [&](OpBuilder &ob, int64_t v) -> Value {
    return arith::ConstantOp::create(ob, loc, ob.getI32IntegerAttr(v));
  };
  // bf16 bits of an f32 (round to nearest even), in the low 16 bits.
  auto toBF16Bits = [&](OpBuilder &ob, Value x) -> Value {
    Value bits = arith::BitcastOp::create(ob, loc, i32, x);
    Value lsb = arith::AndIOp::create(
        ob, loc, arith::ShRUIOp::create(ob, loc, bits, i32c(ob, 16)),
        i32c(ob, 1));
    Value rounded = arith::AddIOp::create(
        ob, loc, bits, arith::AddIOp::create(ob, loc, lsb, i32c(ob, 0x7FFF)));
    return arith::ShRUIOp::create(ob, loc, rounded, i32c(ob, 16));
  };
  // Packs 8 values into a unit (and bf16x3's low parts into `low`).
  auto pack = [&](OpBuilder &ob, ArrayRef<Value> values, Value &low) {
    if (!convertF32 || !config.bf16) {
      // f16: the values as they are, or rounded from f32.
      Type f16 = Float16Type::get(ctx);
      SmallVector<Value> halves;
      for (Value v : values)
        halves.push_back(
            v.getType().isF16()
                ? v
                : arith::TruncFOp::create(ob, loc, f16, v).getResult());
      Value vec = vector::FromElementsOp::create(
          ob, loc, VectorType::get({8}, f16), halves);
      return vector::BitCastOp::create(ob, loc, copyType, vec).getResult();
    }
    SmallVector<Value> hiWords, loWords;
    for (int i = 0; i < 8; i += 2) {
      Value word[2], lowWord[2];
      for (int j = 0; j < 2; ++j) {
        Value hi = toBF16Bits(ob, values[i + j]);
        word[j] = hi;
        if (high) {
          Value hiValue = arith::BitcastOp::create(
              ob, loc, f32, arith::ShLIOp::create(ob, loc, hi, i32c(ob, 16)));
          // The remainder truncated, not rounded: its error is below
          // 2^-7 of a remainder of at most 2^-8 of the value. On an H200 a
          // 3x3 convolution 32x64x56x56 -> 64 went from 0.291 to 0.276 ms
          // (rel L2 4.8e-6 -> 7.7e-6), resnet50 at batch 32 from 13.9 to
          // 13.3 ms (6.3e-5 -> 6.2e-5 against float64).
          Value rest = arith::SubFOp::create(ob, loc, values[i + j], hiValue);
          lowWord[j] = arith::ShRUIOp::create(
              ob, loc, arith::BitcastOp::create(ob, loc, i32, rest),
              i32c(ob, 16));
        }
      }
      auto join = [&](Value lo16, Value hi16) -> Value {
        return arith::OrIOp::create(
            ob, loc, lo16, arith::ShLIOp::create(ob, loc, hi16, i32c(ob, 16)));
      };
      hiWords.push_back(join(word[0], word[1]));
      if (high)
        loWords.push_back(join(lowWord[0], lowWord[1]));
    }
    if (high)
      low = vector::FromElementsOp::create(ob, loc, copyType, loWords);
    return vector::FromElementsOp::create(ob, loc, copyType, hiWords)
        .getResult();
  };

  // The units this thread copies in a k step, in a fixed order; per unit,
  // its tile row and unit column.
  auto forEachUnit = [&](OpBuilder &ob,
                         function_ref<void(const Staging &, Value, Value)> fn) {
    for (const Staging &st : staging)
      for (int64_t i = 0; i < st.units() / config.threads(); ++i) {
        Value unit = arith::AddIOp::create(ob, loc, threadId,
                                           cst(ob, i * config.threads()));
        fn(st, arith::DivUIOp::create(ob, loc, unit, cst(ob, st.unitsPerRow())),
           arith::RemUIOp::create(ob, loc, unit, cst(ob, st.unitsPerRow())));
      }
  };
  Type inElement = getElementTypeOrSelf(op.getDpsInputs()[0].getType());
  // Loads (and converts) this thread's units of the k step from `k0`.
  // Operands whose trailing dimensions are the reduction loops in order
  // (a weight [oc][ic][kh][kw], a matmul's [m][k]): a flat view, in which
  // the k neighbours of a unit are neighbouring elements, so that a unit
  // costs one index computation instead of a delinearization per element.
  // (The Vulkan schedule binds the cast's result to the same buffer.)
  Value flat[2];
  int64_t reductionRank = view.reduction.loops.size();
  for (const Staging &st : staging) {
    Value input = op.getDpsInputs()[st.operand];
    auto type = dyn_cast<MemRefType>(input.getType());
    AffineMap map = op.getIndexingMapsArray()[st.operand];
    // Views (a collapse_shape of the batch into rows) stay in the kernel,
    // where fold-memref-alias-ops folds them into the indices.
    if (!st.alongK || fusion.padded[st.operand] || !type ||
        input.getDefiningOp<ViewLikeOpInterface>() || !type.hasStaticShape() ||
        !type.getLayout().isIdentity() || map.getNumResults() < reductionRank)
      continue;
    bool trailing = true;
    for (int64_t i = 0; i < reductionRank; ++i) {
      auto dim = dyn_cast<AffineDimExpr>(
          map.getResult(map.getNumResults() - reductionRank + i));
      trailing &= dim && dim.getPosition() == view.reduction.loops[i] &&
                  type.getDimSize(type.getRank() - reductionRank + i) ==
                      view.reduction.sizes[i];
    }
    if (!trailing)
      continue;
    OpBuilder outside(launch);
    flat[st.operand] =
        UnrealizedConversionCastOp::create(
            outside, loc,
            MemRefType::get({type.getNumElements()}, type.getElementType()),
            input)
            .getResult(0);
  }
  // Units along a loop group whose innermost loop has a multiple of 8
  // iterations never cross into the next value of the outer loops: the
  // unit's elements differ in the innermost loop only.
  auto unitsStayInRow = [&](const Group &group) {
    return !group.isDynamic() && group.sizes.back() > 0 &&
           group.sizes.back() % 8 == 0;
  };
  int64_t kSize = view.reduction.size();
  // Loads (and converts) this thread's units of the k step from `k0`.
  auto loadStep = [&](OpBuilder &ob, Value k0) {
    SmallVector<Value> packed;
    Value zeroValue =
        arith::ConstantOp::create(ob, loc, ob.getZeroAttr(inElement));
    forEachUnit(ob, [&](const Staging &st, Value row, Value col) {
      Value start = st.group == &view.rows ? tileRow : tileCol;
      Value unitStart = arith::MulIOp::create(ob, loc, col, cst(ob, 8));
      SmallVector<Value> values;
      auto finish = [&](Value value, Value ok) {
        values.push_back(
            arith::SelectOp::create(ob, loc, ok, value, zeroValue));
      };
      if (flat[st.operand]) {
        // The unit's row once; its elements at consecutive k.
        auto [gIndex, gOk] =
            clamp(ob, arith::AddIOp::create(ob, loc, start, row), *st.group);
        SmallVector<Value> loops = batchLoops;
        setLoops(ob, *st.group, gIndex, loops);
        for (unsigned d : view.reduction.loops)
          loops[d] = zero;
        auto type = cast<MemRefType>(op.getDpsInputs()[st.operand].getType());
        SmallVector<Value> at = indices(ob, st.operand, loops);
        SmallVector<int64_t> strides = computeStrides(type.getShape());
        Value base = zero;
        for (auto [index, stride] : llvm::zip(at, strides))
          base = arith::AddIOp::create(
              ob, loc, base,
              arith::MulIOp::create(ob, loc, index, cst(ob, stride)));
        Value kFirst = arith::AddIOp::create(ob, loc, k0, unitStart);
        for (int64_t e = 0; e < 8; ++e) {
          auto [kIndex, kOk] = fx::clampIndex(
              ob, loc, arith::AddIOp::create(ob, loc, kFirst, cst(ob, e)),
              kSize);
          Value value = memref::LoadOp::create(
              ob, loc, flat[st.operand],
              ValueRange{arith::AddIOp::create(ob, loc, base, kIndex)});
          finish(value, arith::AndIOp::create(ob, loc, gOk, kOk));
        }
      } else if (!st.alongK && unitsStayInRow(*st.group)) {
        // Delinearize the unit's first element once (clamped to the last
        // whole unit); the others step the innermost loop.
        const Group &group = *st.group;
        Value first = arith::AddIOp::create(ob, loc, start, unitStart);
        Value gOk = arith::CmpIOp::create(ob, loc, arith::CmpIPredicate::ult,
                                          first, cst(ob, group.size()));
        Value safe =
            arith::MinUIOp::create(ob, loc, first, cst(ob, group.size() - 8));
        auto [kIndex, kOk] = fx::clampIndex(
            ob, loc, arith::AddIOp::create(ob, loc, k0, row), kSize);
        SmallVector<Value> loops = batchLoops;
        setLoops(ob, group, safe, loops);
        setLoops(ob, view.reduction, kIndex, loops);
        Value unitOk = arith::AndIOp::create(ob, loc, gOk, kOk);
        unsigned inner = group.loops.back();
        Value innerFirst = loops[inner];
        for (int64_t e = 0; e < 8; ++e) {
          loops[inner] = arith::AddIOp::create(ob, loc, innerFirst, cst(ob, e));
          Value ok = unitOk;
          Value value = loadGemmInput(ob, loc, op, fusion, st.operand,
                                      indices(ob, st.operand, loops), ok);
          finish(value, ok);
        }
      } else {
        for (int64_t e = 0; e < 8; ++e) {
          // The element's position in the group and in k.
          Value along = arith::AddIOp::create(ob, loc, unitStart, cst(ob, e));
          Value g = st.alongK ? row : along;
          Value kk = st.alongK ? along : row;
          auto [gIndex, gOk] =
              clamp(ob, arith::AddIOp::create(ob, loc, start, g), *st.group);
          auto [kIndex, kOk] = fx::clampIndex(
              ob, loc, arith::AddIOp::create(ob, loc, k0, kk), kSize);
          SmallVector<Value> loops = batchLoops;
          setLoops(ob, *st.group, gIndex, loops);
          setLoops(ob, view.reduction, kIndex, loops);
          Value ok = arith::AndIOp::create(ob, loc, gOk, kOk);
          Value value = loadGemmInput(ob, loc, op, fusion, st.operand,
                                      indices(ob, st.operand, loops), ok);
          finish(value, ok);
        }
      }
      Value low;
      packed.push_back(pack(ob, values, low));
      if (high)
        packed.push_back(low);
    });
    return packed;
  };
  auto storeStep = [&](OpBuilder &ob, ArrayRef<Value> packed) {
    size_t next = 0;
    forEachUnit(ob, [&](const Staging &st, Value row, Value col) {
      Value index = arith::AddIOp::create(
          ob, loc, arith::MulIOp::create(ob, loc, row, cst(ob, st.stride())),
          col);
      int s = &st == &staging[0] ? 0 : 1;
      memref::StoreOp::create(ob, loc, packed[next++], tiles[s][0], index);
      if (high)
        memref::StoreOp::create(ob, loc, packed[next++], tiles[s][1], index);
    });
  };

  int64_t blockM = config.fragsM * kFrag, blockN = config.fragsN * kFrag;
  SubgroupBlock block =
      subgroupBlock(body, loc, threadId, config.subgroupsN, blockM, blockN);
  Value subgroup = block.subgroup, blockRow = block.row, blockCol = block.col;
  // MLIR's mma type has no bf16: bf16 fragments are built as f16 ones and
  // retyped in SPIR-V (fx-retype-bf16-cooperative-matrices).
  Type f16 = Float16Type::get(ctx);
  auto aType = gpu::MMAMatrixType::get({kFrag, kFrag}, f16, "AOp");
  auto bType = gpu::MMAMatrixType::get({kFrag, kFrag}, f16, "BOp");
  auto accType = gpu::MMAMatrixType::get({kFrag, kFrag}, f32, "COp");
  Value accZero = gpu::SubgroupMmaConstantMatrixOp::create(
      body, loc, accType,
      arith::ConstantOp::create(body, loc, body.getF32FloatAttr(0.0f)));
  SmallVector<Value> init(config.fragsM * config.fragsN, accZero);

  storeStep(body, loadStep(body, zero));
  gpu::BarrierOp::create(body, loc);
  int64_t k = view.reduction.size();
  int64_t steps = llvm::divideCeil(k, config.k);
  auto loop = scf::ForOp::create(body, loc, zero, cst(body, steps * config.k),
                                 cst(body, config.k), init);
  {
    OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
    Value k0 = loop.getInductionVar();
    // The next step (the last iteration reloads its own rather than
    // branch).
    Value nextK = arith::MinUIOp::create(
        lb, loc, arith::AddIOp::create(lb, loc, k0, cst(lb, config.k)),
        cst(lb, (steps - 1) * config.k));
    SmallVector<Value> staged = loadStep(lb, nextK);
    SmallVector<Value> acc(loop.getRegionIterArgs());
    // Fragment loads: the unit offset of (tile row r, k kk) in a tile.
    auto fragment = [&](int s, int part, Value blockStart, int64_t offset,
                        int64_t kk, Type type) -> Value {
      const Staging &st = staging[s];
      Value first = arith::AddIOp::create(lb, loc, blockStart, cst(lb, offset));
      Value index =
          st.alongK
              ? arith::AddIOp::create(
                    lb, loc,
                    arith::MulIOp::create(lb, loc, first, cst(lb, st.stride())),
                    cst(lb, kk / 8))
                    .getResult()
              : arith::AddIOp::create(
                    lb, loc, cst(lb, kk * st.stride()),
                    arith::DivUIOp::create(lb, loc, first, cst(lb, 8)))
                    .getResult();
      // A is M x K: row-major when its rows are tile rows (units along k).
      // B is K x N: row-major when its rows are k (units along n).
      bool columnMajor = s == 0 ? !st.alongK : st.alongK;
      return gpu::SubgroupMmaLoadMatrixOp::create(
          lb, loc, type, tiles[s][part], ValueRange{index},
          lb.getIndexAttr(st.stride()),
          columnMajor ? lb.getUnitAttr() : UnitAttr());
    };
    for (int64_t kk = 0; kk < config.k; kk += kFrag) {
      int parts = high ? 2 : 1;
      SmallVector<Value> aFrags[2], bFrags[2];
      for (int part = 0; part < parts; ++part) {
        for (int64_t i = 0; i < config.fragsM; ++i)
          aFrags[part].push_back(
              fragment(0, part, blockRow, i * kFrag, kk, aType));
        for (int64_t j = 0; j < config.fragsN; ++j)
          bFrags[part].push_back(
              fragment(1, part, blockCol, j * kFrag, kk, bType));
      }
      for (int64_t i = 0; i < config.fragsM; ++i)
        for (int64_t j = 0; j < config.fragsN; ++j) {
          Value &c = acc[i * config.fragsN + j];
          // bf16x3: the small products first.
          if (high) {
            c = gpu::SubgroupMmaComputeOp::create(lb, loc, accType,
                                                  aFrags[1][i], bFrags[0][j], c,
                                                  UnitAttr(), UnitAttr());
            c = gpu::SubgroupMmaComputeOp::create(lb, loc, accType,
                                                  aFrags[0][i], bFrags[1][j], c,
                                                  UnitAttr(), UnitAttr());
          }
          c = gpu::SubgroupMmaComputeOp::create(lb, loc, accType, aFrags[0][i],
                                                bFrags[0][j], c, UnitAttr(),
                                                UnitAttr());
        }
    }
    gpu::BarrierOp::create(lb, loc);
    storeStep(lb, staged);
    gpu::BarrierOp::create(lb, loc);
    scf::YieldOp::create(lb, loc, acc);
  }

  // Results: each subgroup stores a fragment to its own 16x16 f32 region
  // of the first tile (4 units a row), then each lane takes 8 elements,
  // two rows of 16 per pass so that stores along a row coalesce.
  Value region =
      arith::MulIOp::create(body, loc, subgroup, cst(body, kFrag * 4));
  Value lane =
      arith::RemUIOp::create(body, loc, threadId, cst(body, kSubgroupSize));
  Type outElement = getElementTypeOrSelf(op.getDpsInits()[0].getType());
  for (int64_t i = 0; i < config.fragsM; ++i)
    for (int64_t j = 0; j < config.fragsN; ++j) {
      gpu::SubgroupMmaStoreMatrixOp::create(
          body, loc, loop.getResult(i * config.fragsN + j), outTile,
          ValueRange{region}, body.getIndexAttr(4), UnitAttr());
      gpu::BarrierOp::create(body, loc);
      for (int64_t pass = 0; pass < kFrag * kFrag / kSubgroupSize; ++pass) {
        Value e = arith::AddIOp::create(body, loc, lane,
                                        cst(body, pass * kSubgroupSize));
        Value r = arith::DivUIOp::create(body, loc, e, cst(body, kFrag));
        Value cc = arith::RemUIOp::create(body, loc, e, cst(body, kFrag));
        Value unit = arith::AddIOp::create(
            body, loc, region,
            arith::AddIOp::create(
                body, loc, arith::MulIOp::create(body, loc, r, cst(body, 4)),
                arith::DivUIOp::create(body, loc, cc, cst(body, 4))));
        Value bits = memref::LoadOp::create(body, loc, outTile, unit);
        Value lanes = vector::BitCastOp::create(
            body, loc, VectorType::get({4}, f32), bits);
        Value value = vector::ExtractOp::create(
            body, loc, lanes,
            ArrayRef<OpFoldResult>{
                arith::RemUIOp::create(body, loc, cc, cst(body, 4))
                    .getResult()});
        Value rowIndex = arith::AddIOp::create(
            body, loc, tileRow,
            arith::AddIOp::create(
                body, loc, blockRow,
                arith::AddIOp::create(body, loc, r, cst(body, i * kFrag))));
        Value colIndex = arith::AddIOp::create(
            body, loc, tileCol,
            arith::AddIOp::create(
                body, loc, blockCol,
                arith::AddIOp::create(body, loc, cc, cst(body, j * kFrag))));
        auto [rowClamped, rowOk] = clamp(body, rowIndex, view.rows);
        auto [colClamped, colOk] = clamp(body, colIndex, view.cols);
        Value ok = arith::AndIOp::create(body, loc, rowOk, colOk);
        auto guard = scf::IfOp::create(body, loc, ok, /*withElse=*/false);
        OpBuilder gb = guard.getThenBodyBuilder();
        SmallVector<Value> loops = batchLoops;
        setLoops(gb, view.rows, rowClamped, loops);
        setLoops(gb, view.cols, colClamped, loops);
        SmallVector<Value> outIndex = indices(gb, 2, loops);
        if (outElement != f32)
          value = arith::TruncFOp::create(gb, loc, outElement, value);
        // linalg accumulates into the output's initial value.
        if (!fusion.zeroInit)
          value = arith::AddFOp::create(
              gb, loc,
              memref::LoadOp::create(gb, loc, op.getDpsInits()[0], outIndex),
              value);
        storeGemmResult(gb, loc, op, fusion, value, outIndex);
      }
      gpu::BarrierOp::create(body, loc);
    }
  gpu::TerminatorOp::create(body, loc);
  op->erase();
}

} // namespace mlir::fx::matmul
