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
// of GemmFusion), or as 16-byte words where an operand is a flat array
// along k, converted to the fragments' type per the precision, and
// packed. The next step's units are loaded into registers while the
// current step's fragments multiply.
//
// The accumulators leave through workgroup memory a fragment row per
// subgroup at a time: each lane takes four neighbouring columns of a row,
// adds the output's initial value (unless it is zero), applies the fused
// epilogue and stores with the op's output indexing (any layout, partial
// tiles guarded), as one 16-byte store where the output's columns are
// contiguous in memory.
//
//===----------------------------------------------------------------------===//

#include "MatmulKernels.h"

#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
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

/// Output tiles of m x n of `view` (static sizes).
static int64_t outputTiles(const GemmView &view, int64_t m, int64_t n) {
  return view.batch.size() * llvm::divideCeil(view.rows.size(), m) *
         llvm::divideCeil(view.cols.size(), n);
}

/// 16-byte units a row of a subgroup's results strip (a fragment row, 16
/// x fragsN * 16 f32) takes: its length and a unit of padding, so that the
/// fragment stores' rows start in different banks of workgroup memory.
static int64_t stripStride(const CoopGemmConfig &config) {
  return config.fragsN * kFrag / 4 + 1;
}

/// 16-byte units of all subgroups' strips.
static int64_t stripsUnits(const CoopGemmConfig &config) {
  return config.subgroupsM * config.subgroupsN * kFrag * stripStride(config);
}

/// Workgroup memory of the kernel: both operands' staged tiles (16-byte
/// units, a unit of padding per row; bf16x3 stages two of each), whose
/// space then holds a strip of a fragment row (16 x fragsN * 16 f32) per
/// subgroup for the results.
static int64_t workgroupBytes(const CoopGemmConfig &config) {
  int64_t planes = config.precision == Precision::High ? 2 : 1;
  // Units of a tile of `count` elements by k: rows of k / 8 units, or
  // (units along the rows or columns, possible unless packed) k rows of
  // count / 8 units; the larger when the layout is not known yet.
  auto tileUnits = [&](int64_t count) {
    int64_t alongK = count * (config.k / 8 + 1);
    if (config.packedConv)
      return alongK;
    return std::max(alongK, config.k * (count / 8 + 1));
  };
  int64_t a = tileUnits(config.m()), b = tileUnits(config.n());
  return 16 * std::max(planes * (a + b), stripsUnits(config));
}

FailureOr<CoopGemmConfig>
chooseCoopGemm(linalg::LinalgOp op, const GemmView &view, Precision precision,
               bool allowBF16, int64_t packedConvMinMacs, std::string &why) {
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
  auto tiles = [&](int64_t m, int64_t n) { return outputTiles(view, m, n); };
  // NCHW convolutions large enough to repay the repacking kernels.
  if (auto conv = dyn_cast<linalg::Conv2DNchwFchwOp>(op.getOperation())) {
    auto input = cast<MemRefType>(conv.getDpsInputs()[0].getType());
    int64_t macs = batch * rows * cols * view.reduction.size();
    config.packedConv = packedConvMinMacs >= 0 && input.hasStaticShape() &&
                        input.getDimSize(1) % 8 == 0 &&
                        macs >= packedConvMinMacs;
    // Pointwise convolutions (1x1, stride 1) of fewer than 256 output
    // channels or 128 input channels stay unpacked: each image's input is
    // already a GEMM operand ([C][H x W], the columns contiguous), read 8
    // neighbouring columns per unit. On an H200 at precision high, with
    // 64x64 tiles everywhere, that took resnet50 at batch 32 from 7.42 to
    // 7.09 ms of GPU time (its 1x1 convolutions at 56x56 and 28x28 with
    // their packing kernels 123-137 -> 81-108 us, at 14x14 3-27 us faster;
    // two 2048 -> 512 at 7x7 16-20 us slower), densenet121 at batch 16
    // from 5.35 to 5.16 ms. In the larger tiles of widenConvolutionTiles,
    // packed ones of 256 output channels or more and 128 input channels or
    // more are faster, packing included: resnet50's 128 -> 512 at 28x28
    // 98 -> 71 us, 1024 -> 512 at 14x14 190 -> 127, 512 -> 2048 at 7x7 103
    // -> 80 (and 64 -> 64 at 56x56 35 -> 55, 512 -> 128 at 28x28 83 -> 99:
    // those stay unpacked).
    auto filter = cast<MemRefType>(conv.getDpsInputs()[1].getType());
    bool pointwise = filter.getDimSize(2) == 1 && filter.getDimSize(3) == 1 &&
                     llvm::all_of(conv.getStrides().getValues<int64_t>(),
                                  [](int64_t s) { return s == 1; });
    config.packedConv &= !pointwise || (filter.getDimSize(0) >= 256 &&
                                        filter.getDimSize(1) >= 128);
  }
  // Matmuls (both operands read through flat views along k) take 4x4
  // fragments per subgroup (128x128 tiles) while those fill an H200's 132
  // SMs; convolutions, whose implicit-GEMM loads keep more index
  // arithmetic live, 2x2 (64x64 tiles). Measured on an H200 at precision
  // high, GPU time: a 3x3 convolution 32x64x56x56 -> 64 0.455 ms with 4x4
  // fragments, 0.293 with 2x2; resnet50 at batch 32 21.6 and 13.9 ms; a
  // 4096^3 linear layer 4.55 and 6.09 ms. Outputs of fewer 64x64 tiles
  // than SMs split k (below); matmuls whose k is too short to split go to
  // the SIMT kernel.
  // Packed convolutions stay at 2x2 fragments: on an H200 at precision
  // high, 4x4 fragments in 64x256 or 128x128 tiles took resnet50 at batch
  // 32 from 10.6 to 14.4 ms (a 1x1 convolution 32x64x56x56 -> 256: 0.19 ->
  // 0.27 ms), and a k step of 32 from 9.3 to 9.9 ms (before the results
  // left through 16-byte strips; see below for now).
  bool flatOperands = linalg::isaContractionOpInterface(op);
  // bf16x3 stages two tiles per operand: half the k step keeps workgroup
  // memory near 20 KiB (and a k step of 32 at high measured slower on an
  // H200: resnet50 at batch 32 13.9 -> 16.2 ms), except for packed
  // convolutions, whose units need no conversion: there a k step of 32
  // (20 KiB) took resnet50 at batch 32 from 7.42 to 6.97 ms on an H200
  // (3x3 convolutions at 28x28 and 7x7 43-58 us faster each, at 56x56
  // 11-16 us; at 14x14 6-13 us slower), densenet121 at batch 16 5.35 ->
  // 5.26 ms.
  config.k =
      config.precision == Precision::High && !config.packedConv ? 16 : 32;
  if (!flatOperands || tiles(config.m(), config.n()) < kCoopMinTiles) {
    config.fragsM = config.fragsN = 2;
    int64_t count = tiles(64, 64);
    // Unpacked convolutions also split where their tiles fill a second
    // wave less than half: resnet18's 7x7 stem at batch 1 (196 tiles, k =
    // 147) took 29.4 us unsplit and 21.4 + 6.0 us (the sum) split 2 ways
    // on an H200 at precision high, the model 0.387 -> 0.380 ms in place
    // (ab.py, 4 alternated rounds). Packed ones keep their wider tiles
    // (widenConvolutionTiles).
    int64_t splitBelow =
        linalg::isaConvolutionOpInterface(op) && !config.packedConv
            ? kCoopMinTiles * 3 / 2
            : kCoopMinTiles;
    if (count < splitBelow) {
      // Split-k: about two workgroups per SM, each reducing at least two
      // k steps for a convolution (instead of four: resnet18 0.483 ->
      // 0.467 ms, mobilenet_v2 0.510 -> 0.463, efficientnet_b0 0.884 ->
      // 0.818 on an H200, with the SIMT kernel's alike; more workgroups,
      // four per SM, were slower for resnet18), at least eight for a
      // matmul. resnet18 at batch 1 (3x3 convolutions of 8 to 49 tiles, k
      // = 576 to 4608) went from 0.572 to 0.543 ms on an H200 (most of its
      // convolutions 24-27 -> 18-20 us, two 27 -> 38). Matmuls, split like
      // that rather than sent to the SIMT kernel's split-k: on an H200 at
      // precision high, GPU time, convnext_tiny at batch 1 1.438 -> 1.303
      // ms (its linear layers of 49 to 784 tokens), a transformer encoder
      // 8x128x256 0.296 -> 0.277 (its 1024 -> 256 feed-forward layers, k =
      // 1024, 30.4 -> 19.2 + 3.8 us). Shorter reductions stay on the SIMT
      // kernel: split there, the encoder's 256 -> 256 projections (16 k
      // steps) and attention's probabilities by values (8) took 1-1.5 us
      // longer each. The partial sums are f32: an f16 output stays
      // unsplit. (32x32 tiles of one subgroup, 2x2 fragments, instead of
      // split-k where those fill the GPU, split-k with them otherwise, were
      // slower on an H200: resnet18 0.455 -> 1.088 ms, mobilenet_v2 0.467
      // -> 0.538, efficientnet_b0 0.813 -> 0.903, convnext_tiny 1.591 ->
      // 1.699.)
      int64_t reduction = view.reduction.size();
      int64_t minSteps = linalg::isaConvolutionOpInterface(op) ? 2 : 8;
      int64_t splits =
          std::min<int64_t>(llvm::divideCeil(2 * kCoopMinTiles, count),
                            reduction / (minSteps * config.k));
      if (splits >= 2 && c.isF32()) {
        std::tie(config.kPerSplit, config.splits) =
            splitReduction(reduction, splits, config.k);
      }
      if (count * config.splits < kCoopMinTiles)
        return fail("only " + Twine(count) + " 64x64 output tiles");
    }
  }
  // Workgroup memory within the 48 KiB every NVIDIA GPU gives a workgroup
  // without opting in: a larger k step of 64x256 tiles at high lost the
  // device.
  while (config.k > kFrag &&
         workgroupBytes(config) > kCooperativeWorkgroupMemory)
    config.k /= 2;
  // Matmuls load each k step two steps ahead. On an H200 at precision
  // high (GPU time, alternated in one call): a transformer encoder
  // 8x128x256 0.276 -> 0.265 ms (its linear layers 0.3-2.3 us faster
  // each), convnext_tiny's linear layers at 56x56, 28x28 and 7x7 2.5-3.8
  // us faster, at 14x14 about 1 us slower. Convolutions stay one step
  // ahead: with their implicit-GEMM index arithmetic, two steps took
  // resnet50 at batch 32 from 6.70 to 7.17 ms (3x3 and 1x1 convolutions
  // 3-24 us slower each), densenet121 at batch 16 from 4.87 to 5.28.
  // Except convolutions split 8 ways or more with at least 8 k steps per
  // split (batch-1 3x3 convolutions of 14x14 and 7x7 images, 8 to 16
  // output tiles), whose loads wait on memory: resnet18 at batch 1 0.437
  // -> 0.414 ms (alternated in one call; its 3x3 convolutions of 256 and
  // 512 channels 16-17 -> 16 us, and the first of each stage, whose
  // filters come from memory rather than the L2 cache, 32 -> 23 us).
  // Convolutions split fewer ways stay one step ahead: densenet121 at
  // batch 16 (its 1x1 convolutions split 3 ways, 3x3 ones 6 ways) went
  // from 4.90 to 5.00 ms with them two steps ahead.
  config.twoAhead =
      flatOperands || (config.splits >= 8 && config.kPerSplit >= 8 * config.k);
  return config;
}

void widenConvolutionTiles(linalg::LinalgOp op, const GemmView &view,
                           bool inputPrologue, CoopGemmConfig &config) {
  // NCHW only: there the rows are the output channels and the columns the
  // pixels (channels-last convolutions, measured with 64x64 tiles only,
  // have them the other way round).
  if (!isa<linalg::Conv2DNchwFchwOp>(op.getOperation()) || config.splits != 1 ||
      config.m() != 64 || config.n() != 64)
    return;
  int64_t rows = view.rows.size();
  // Tries a tile of sm x sn subgroups of fm x fn fragments each; keeps it
  // where it makes at least `minTiles` output tiles.
  auto widen = [&](int64_t sm, int64_t sn, int64_t fm, int64_t fn,
                   int64_t minTiles) {
    CoopGemmConfig next = config;
    next.subgroupsM = sm;
    next.subgroupsN = sn;
    next.fragsM = fm;
    next.fragsN = fn;
    next.k = 32;
    // Every thread stages whole units of both operands.
    for (int64_t count : {next.m(), next.n()})
      if ((count * next.k / 8) % next.threads() != 0)
        return false;
    if (outputTiles(view, next.m(), next.n()) < minTiles ||
        workgroupBytes(next) > kCooperativeWorkgroupMemory)
      return false;
    config = next;
    return true;
  };
  if (config.packedConv) {
    // The rows are the output channels: 128 x 128 where 256 or more still
    // make most of a wave, else 128 x 64, else 64 x 128 (rows of 128 where
    // there are 64 idle half the tile: 130 -> 206 us for a 3x3
    // convolution of 64 channels at 56x56).
    if (rows >= 256 && widen(2, 4, 4, 2, 96))
      return;
    // Fewer 128 x 128 tiles, with a long k: those tiles, k split to make
    // one wave (a workgroup per SM: 187 registers a thread), each split
    // at least 8 k steps. On an H200 at precision high (alternated in one
    // call, GPU time): resnet50 at batch 32 5.69 -> 5.60 ms, its 3x3
    // convolutions of 512 channels at 7x7 (52 tiles, split 2 ways) 132 ->
    // 113 us each, from 128 x 64 tiles unsplit. (Splitting tiles of a wave
    // or more to fill their last wave, 98 tiles 4 ways, made them slower:
    // a 3x3 convolution of 256 channels at 14x14 99 -> 121 us.)
    if (rows >= 256 &&
        isa<Float32Type>(getElementTypeOrSelf(op.getDpsInits()[0].getType()))) {
      CoopGemmConfig unsplit = config;
      if (widen(2, 4, 4, 2, 1)) {
        int64_t tiles = outputTiles(view, config.m(), config.n());
        int64_t steps = llvm::divideCeil(view.reduction.size(), config.k);
        int64_t splits =
            std::min({kCoopMinTiles / tiles, steps / 8, int64_t(4)});
        if (splits >= 2) {
          std::tie(config.kPerSplit, config.splits) =
              splitReduction(view.reduction.size(), splits, config.k);
          return;
        }
        config = unsplit;
      }
    }
    if (rows >= 128 && widen(4, 2, 2, 2, 96))
      return;
    if (rows >= 64)
      widen(2, 4, 2, 2, kCoopMinTiles);
    return;
  }
  // Unpacked (pointwise) convolutions: 128 x 64 where the reduction is
  // long and the rows are 128 or the tiles one wave, and the kernel
  // computes no producer of the input as it loads it. Measured on an H200
  // (resnet50 at batch 32): 512 -> 128 at 28x28 6-14 us faster each, 2048
  // -> 512 at 7x7 25-27; slower elsewhere: 64 -> 256 at 56x56 (k = 64) 112
  // -> 131 us, 1024 -> 256 at 14x14 (two waves) 84 -> 103, DenseNet's
  // 1x1 convolutions after batch norm and ReLU (a prologue) 9-12 us each.
  // (128 x 128 tiles of 4x2 fragments per subgroup made resnet50's 1x1
  // convolutions as much slower as faster.)
  if (!inputPrologue && rows >= 128 && view.reduction.size() >= 256 &&
      (rows == 128 || outputTiles(view, 128, 64) <= kCoopMinTiles))
    widen(4, 2, 2, 2, 96);
}

/// The buffer under `value` whose elements are `value`'s in the same
/// row-major order: `value` itself, or the source of a chain of
/// collapse_shape / expand_shape views of a static, identity-layout buffer
/// (a linear layer's [1, H, W, C] input read as [H x W, C]). A 16-byte view
/// of that buffer, indexed by linearizing `value`'s indices over `value`'s
/// shape, then reads the same elements. Null where a view may reorder or
/// offset them. (Before, any view sent its operand to the per-element
/// loads: on an H200 at precision high, alternated in one call, GPU time,
/// convnext_tiny 1.232 -> 1.169 ms, its first linear layers at 56x56 18.3
/// -> 13.9 us each; the transformer encoder 0.238 -> 0.216 ms.)
static Value contiguousBuffer(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (!isa<memref::CollapseShapeOp, memref::ExpandShapeOp>(def))
      break;
    value = def->getOperand(0);
  }
  auto type = dyn_cast<MemRefType>(value.getType());
  if (!type || !type.hasStaticShape() || !type.getLayout().isIdentity() ||
      value.getDefiningOp<ViewLikeOpInterface>())
    return Value();
  return value;
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
  auto copyType = VectorType::get({4}, IntegerType::get(ctx, 32));
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
  auto packUnit = [&](OpBuilder &ob, ArrayRef<Value> values, Value &low) {
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

  // Packed operands: [d0][d2][d3][d1 / 8] units of both 4-d operands
  // (the input [N][C][H][W] and the filter [F][C][KH][KW] have their
  // channels at dimension 1), the low parts' plane after the high one.
  // buildPackKernel (the filter's, a few KiB to MiB): a thread per unit,
  // neighbouring threads along d3.
  Value packedView[2];
  int64_t packedUnits[2] = {0, 0};
  // A strided 1x1 convolution without padding (ResNet's downsampling) reads
  // every `packStride`-th row and column of its input: only those are
  // packed, [N][OH][OW][C/8] (the whole input took 4x the traffic: 61 us
  // instead of about 15 for resnet50's first one at batch 32 on an H200).
  int64_t packStride = 1;
  if (auto conv = dyn_cast<linalg::Conv2DNchwFchwOp>(op.getOperation())) {
    ArrayRef<int64_t> filter =
        cast<MemRefType>(conv.getDpsInputs()[1].getType()).getShape();
    SmallVector<int64_t> strides(conv.getStrides().getValues<int64_t>());
    if (config.packedConv && filter[2] == 1 && filter[3] == 1 &&
        strides[0] == strides[1] && strides[0] > 1 && !fusion.padded[0])
      packStride = strides[0];
  }
  // The rows and columns of operand `operand`'s packed units.
  auto packedHW = [&](unsigned operand) -> std::pair<int64_t, int64_t> {
    ArrayRef<int64_t> shape =
        cast<MemRefType>((operand == 0 && packStride > 1
                              ? op.getDpsInits()[0]
                              : op.getDpsInputs()[operand])
                             .getType())
            .getShape();
    return {shape[2], shape[3]};
  };
  // The packed unit of operand `operand` at (d0, d2, d3) (its packed rows
  // and columns) and channel unit `unit`: ((d0 * D2 + d2) * D3 + d3) *
  // (D1 / 8) + unit.
  auto packedAddress = [&](OpBuilder &ob, unsigned operand, Value d0, Value d2,
                           Value d3, Value unit) -> Value {
    ArrayRef<int64_t> shape =
        cast<MemRefType>(op.getDpsInputs()[operand].getType()).getShape();
    auto [height, width] = packedHW(operand);
    Value row = arith::AddIOp::create(
        ob, loc, arith::MulIOp::create(ob, loc, d0, cst(ob, height)), d2);
    Value pixel = arith::AddIOp::create(
        ob, loc, arith::MulIOp::create(ob, loc, row, cst(ob, width)), d3);
    return arith::AddIOp::create(
        ob, loc, arith::MulIOp::create(ob, loc, pixel, cst(ob, shape[1] / 8)),
        unit);
  };
  // The packed buffer of operand `operand`: `units` 16-byte units per
  // plane, seen as vector<4xi32> elements.
  auto allocatePacked = [&](unsigned operand, int64_t units) {
    int64_t planes = high ? 2 : 1;
    Value buffer = memref::AllocOp::create(
        b, loc, MemRefType::get({units * planes * 4}, i32));
    packedView[operand] =
        UnrealizedConversionCastOp::create(
            b, loc, MemRefType::get({units * planes}, copyType), buffer)
            .getResult(0);
    packedUnits[operand] = units;
  };
  // Stores a unit (and bf16x3's low part, a plane further).
  auto storePacked = [&](OpBuilder &ob, unsigned operand, Value address,
                         Value hiUnit, Value low) {
    memref::StoreOp::create(ob, loc, hiUnit, packedView[operand], address);
    if (high)
      memref::StoreOp::create(
          ob, loc, low, packedView[operand],
          ValueRange{arith::AddIOp::create(ob, loc, address,
                                           cst(ob, packedUnits[operand]))});
  };
  auto buildPackKernel = [&](unsigned operand) {
    ArrayRef<int64_t> shape =
        cast<MemRefType>(op.getDpsInputs()[operand].getType()).getShape();
    int64_t groups = shape[1] / 8;
    int64_t units = shape[0] * groups * shape[2] * shape[3];
    allocatePacked(operand, units);
    fx::ElementLaunch pack = fx::createElementLaunch(
        b, fx::withKernelRole(loc, operand ? "pack filter" : "pack input"),
        units, 256);
    OpBuilder &gb = pack.guarded;
    SmallVector<Value> at = fx::delinearize(
        gb, loc, pack.index,
        ArrayRef<int64_t>{shape[0], groups, shape[2], shape[3]});
    Value channel0 = arith::MulIOp::create(gb, loc, at[1], cst(gb, 8));
    Value zeroValue =
        arith::ConstantOp::create(gb, loc,
                                  gb.getZeroAttr(getElementTypeOrSelf(
                                      op.getDpsInputs()[operand].getType())));
    SmallVector<Value> values;
    for (int64_t e = 0; e < 8; ++e) {
      Value ok;
      Value value = loadGemmInput(
          gb, loc, op, fusion, operand,
          {at[0], arith::AddIOp::create(gb, loc, channel0, cst(gb, e)), at[2],
           at[3]},
          ok);
      values.push_back(
          ok ? arith::SelectOp::create(gb, loc, ok, value, zeroValue)
                   .getResult()
             : value);
    }
    Value low;
    Value hiUnit = packUnit(gb, values, low);
    Value address = packedAddress(gb, operand, at[0], at[2], at[3], at[1]);
    storePacked(gb, operand, address, hiUnit, low);
  };
  // The input's packing kernel transposes through workgroup memory: a
  // workgroup takes `channels` x `columns` elements of one image row,
  // loaded along the row (coalesced), and writes their units along the
  // channels (coalesced); a thread per unit, as buildPackKernel, wrote
  // 16 bytes a unit apart and ran at a third of the memory's bandwidth.
  auto buildInputPackKernel = [&]() {
    ArrayRef<int64_t> shape =
        cast<MemRefType>(op.getDpsInputs()[0].getType()).getShape();
    // The packed rows and columns (every packStride-th of the input's).
    auto [height, width] = packedHW(0);
    int64_t batch = shape[0], channels = shape[1];
    int64_t groups = channels / 8;
    int64_t units = batch * groups * height * width;
    allocatePacked(0, units);
    constexpr int64_t threads = 256, elements = 8 * threads;
    int64_t blockC = channels % 64 == 0   ? 64
                     : channels % 32 == 0 ? 32
                     : channels % 16 == 0 ? 16
                                          : 8;
    int64_t blockW = elements / blockC, stride = blockW + 1;
    // Unstrided, an image's rows follow each other in both layouts: a
    // workgroup takes `blockW` pixels of the flattened image (a 14x14
    // image's rows, 14 columns of 32, left 18 threads in 32 idle).
    bool flat = packStride == 1;
    int64_t imageWidth = width, columns = flat ? height * width : width;
    int64_t blocksW = llvm::divideCeil(columns, blockW);
    auto pack = gpu::LaunchOp::create(b, fx::withKernelRole(loc, "pack input"),
                                      cst(b, blocksW * (channels / blockC)),
                                      cst(b, flat ? 1 : height), cst(b, batch),
                                      cst(b, threads), c1, c1);
    OpBuilder kb = OpBuilder::atBlockBegin(&pack.getBody().front());
    Value t = pack.getThreadIds().x, image = pack.getBlockIds().z,
          row = pack.getBlockIds().y;
    Value cBlock =
        arith::DivUIOp::create(kb, loc, pack.getBlockIds().x, cst(kb, blocksW));
    Value w0 = arith::MulIOp::create(
        kb, loc,
        arith::RemUIOp::create(kb, loc, pack.getBlockIds().x, cst(kb, blocksW)),
        cst(kb, blockW));
    Value c0 = arith::MulIOp::create(kb, loc, cBlock, cst(kb, blockC));
    // The input row and column of pixel `column` of workgroup row `row`.
    auto rowAndColumn = [&](OpBuilder &ob,
                            Value column) -> std::pair<Value, Value> {
      if (!flat)
        return {row, column};
      return {arith::DivUIOp::create(ob, loc, column, cst(ob, imageWidth)),
              arith::RemUIOp::create(ob, loc, column, cst(ob, imageWidth))};
    };
    Value shared = memref::AllocOp::create(
        kb, loc,
        MemRefType::get({blockC * stride}, f32, AffineMap(),
                        kb.getI64IntegerAttr(kWorkgroupMemorySpace)));
    Type element = getElementTypeOrSelf(op.getDpsInputs()[0].getType());
    Value zeroValue =
        arith::ConstantOp::create(kb, loc, kb.getZeroAttr(element));
    for (int64_t i = 0; i < elements / threads; ++i) {
      Value q = arith::AddIOp::create(kb, loc, t, cst(kb, i * threads));
      Value c = arith::DivUIOp::create(kb, loc, q, cst(kb, blockW));
      Value w = arith::RemUIOp::create(kb, loc, q, cst(kb, blockW));
      auto [column, ok] = fx::clampIndex(
          kb, loc, arith::AddIOp::create(kb, loc, w0, w), columns);
      auto [h, x] = rowAndColumn(kb, column);
      Value value = loadGemmInput(
          kb, loc, op, fusion, 0,
          {image, arith::AddIOp::create(kb, loc, c0, c),
           arith::MulIOp::create(kb, loc, h, cst(kb, packStride)),
           arith::MulIOp::create(kb, loc, x, cst(kb, packStride))},
          ok);
      value = arith::SelectOp::create(kb, loc, ok, value, zeroValue);
      if (!element.isF32())
        value = arith::ExtFOp::create(kb, loc, f32, value);
      memref::StoreOp::create(
          kb, loc, value, shared,
          ValueRange{arith::AddIOp::create(
              kb, loc, arith::MulIOp::create(kb, loc, c, cst(kb, stride)), w)});
    }
    gpu::BarrierOp::create(kb, loc);
    int64_t unitsPerColumn = blockC / 8;
    Value w = arith::DivUIOp::create(kb, loc, t, cst(kb, unitsPerColumn));
    Value unitInColumn =
        arith::RemUIOp::create(kb, loc, t, cst(kb, unitsPerColumn));
    Value column = arith::AddIOp::create(kb, loc, w0, w);
    SmallVector<Value> values;
    for (int64_t e = 0; e < 8; ++e) {
      Value c = arith::AddIOp::create(
          kb, loc, arith::MulIOp::create(kb, loc, unitInColumn, cst(kb, 8)),
          cst(kb, e));
      Value value = memref::LoadOp::create(
          kb, loc, shared,
          ValueRange{arith::AddIOp::create(
              kb, loc, arith::MulIOp::create(kb, loc, c, cst(kb, stride)), w)});
      if (!element.isF32())
        value = arith::TruncFOp::create(kb, loc, element, value);
      values.push_back(value);
    }
    Value low;
    Value hiUnit = packUnit(kb, values, low);
    auto guard = scf::IfOp::create(
        kb, loc,
        arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::ult, column,
                              cst(kb, columns)),
        /*withElseRegion=*/false);
    gpu::TerminatorOp::create(kb, loc);
    OpBuilder gb = guard.getThenBodyBuilder();
    auto [h, x] = rowAndColumn(gb, column);
    Value address = packedAddress(
        gb, 0, image, h, x,
        arith::AddIOp::create(
            gb, loc,
            arith::MulIOp::create(gb, loc, cBlock, cst(gb, unitsPerColumn)),
            unitInColumn));
    storePacked(gb, 0, address, hiUnit, low);
  };
  if (config.packedConv) {
    buildInputPackKernel();
    buildPackKernel(1);
  }
  Location launchLoc =
      config.bf16
          ? Location(FusedLoc::get(ctx, {kernelLoc()},
                                   StringAttr::get(ctx, kBF16FragmentsMarker)))
          : kernelLoc();
  // Split-k partial sums (f32: chooseCoopGemm splits f32 outputs only):
  // up to kMaxSplitsSummedInKernel splits, each workgroup's tile in
  // `tilePartials`, summed by the tile's last workgroup to finish, which
  // `arrivals` counts (see below); else [split][batch][row][column] in a
  // temporary that a second kernel sums (buildSplitSum), or the row kernel
  // that reads the result (buildSplitSumGeneric).
  int64_t gridCols = llvm::divideCeil(view.cols.size(), config.n());
  int64_t gridRows = llvm::divideCeil(view.rows.size(), config.m());
  int64_t gridTiles = view.batch.size() * gridRows * gridCols;
  Value partial, tilePartials, arrivals;
  if (config.splits > 1) {
    if (config.splits > kMaxSplitsSummedInKernel || splitSumInRowKernel()) {
      partial = allocatePartialSums(b, config.splits);
    } else {
      tilePartials =
          memref::AllocOp::create(b, loc,
                                  MemRefType::get({gridTiles * config.splits *
                                                   config.m() * config.n() / 4},
                                                  copyType));
      // A counter per tile that persists from call to call, zero between
      // them (the last workgroup resets it): the Vulkan program keeps such
      // an allocation as a zero-initialized buffer of its own.
      auto counters = memref::AllocOp::create(
          b, loc, MemRefType::get({gridTiles}, b.getI32Type()));
      counters->setAttr(kPersistentZerosAttr, b.getUnitAttr());
      arrivals = counters;
    }
  }
  auto launch =
      gpu::LaunchOp::create(b, launchLoc, cst(b, gridCols), cst(b, gridRows),
                            cst(b, view.batch.size() * config.splits),
                            cst(b, config.threads()), c1, c1);
  OpBuilder body = OpBuilder::atBlockBegin(&launch.getBody().front());
  threadId = launch.getThreadIds().x;
  zero = cst(body, 0);
  extents.assign(op.getNumLoops(), Value());
  batchLoops.assign(op.getNumLoops(), Value());
  // The grid's z is (batch, split).
  SmallVector<Value> batchAndSplit =
      fx::delinearize(body, loc, launch.getBlockIds().z,
                      ArrayRef<int64_t>{view.batch.size(), config.splits});
  Value batchLinear = batchAndSplit[0], split = batchAndSplit[1];
  if (!view.batch.loops.empty())
    setLoops(body, view.batch, batchLinear, batchLoops);
  Value tileRow = arith::MulIOp::create(body, loc, launch.getBlockIds().y,
                                        cst(body, config.m()));
  Value tileCol = arith::MulIOp::create(body, loc, launch.getBlockIds().x,
                                        cst(body, config.n()));

  unsigned rowOperand = view.rowOperand, colOperand = 1 - view.rowOperand;
  // Units run along an operand's innermost dimension in memory: k when it
  // moves with the reduction's innermost loop and not with its group's.
  auto alongK = [&](unsigned operand, const Group &group) {
    return config.packedConv || (isInnermost(operand, view.reduction) &&
                                 !isInnermost(operand, group));
  };
  Staging staging[2] = {{rowOperand, &view.rows, config.m(), config.k,
                         alongK(rowOperand, view.rows)},
                        {colOperand, &view.cols, config.n(), config.k,
                         alongK(colOperand, view.cols)}};

  auto workgroupTile = [&](int64_t units) -> Value {
    return memref::AllocOp::create(
        body, loc,
        MemRefType::get({units}, copyType, AffineMap(),
                        body.getI64IntegerAttr(kWorkgroupMemorySpace)));
  };
  // Tiles: [operand][part] (part 1: bf16x3's low halves).
  // All in one workgroup buffer, at tileOffset[operand][part] units; after
  // the k loop the same buffer holds each subgroup's strip of a fragment
  // row (16 x fragsN * 16 f32, a unit of padding per row) on its way out.
  // Separate buffers for the strips made the kernel need 21 KiB of
  // workgroup memory instead of 16: on an H200, fewer workgroups fitted on
  // an SM, and a batch-32 ResNet's convolutions at 14x14 (392 workgroups,
  // one wave before) took 37% longer.
  int64_t tileOffset[2][2] = {{0, 0}, {0, 0}};
  int64_t tileUnits = 0;
  for (int s = 0; s < 2; ++s)
    for (int part = 0; part < (high ? 2 : 1); ++part) {
      tileOffset[s][part] = tileUnits;
      tileUnits += staging[s].rowsOfTile() * staging[s].stride();
    }
  Value tileBuffer = workgroupTile(std::max(tileUnits, stripsUnits(config)));

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
  int64_t kSize = view.reduction.size();
  int64_t elementBytes = inElement.getIntOrFloatBitWidth() / 8;
  // Operands whose trailing dimensions are the reduction loops in order
  // (a weight [oc][ic][kh][kw], a matmul's [m][k]): a flat view, in which
  // the k neighbours of a unit are neighbouring elements, so that a unit
  // costs one index computation instead of a delinearization per element.
  // (The Vulkan schedule binds the cast's result to the same buffer.)
  // Where k is a multiple of 8 (a unit is then all inside k or all
  // outside, the rows' starts multiples of k), the view is one of 16-byte
  // words instead, a unit one (f16) or two (f32) aligned words. Eight
  // 4-byte loads per unit made the loads the bottleneck: on an H200 at
  // precision high, one or two 16-byte loads took a 4096^3 matmul from
  // 3.34 to 2.51 ms (55 TFLOP/s), a 4096^3 linear layer 4.00 -> 2.70,
  // resnet18 at batch 1 0.537 -> 0.487 (its filters), a transformer
  // encoder 8x128x256 0.405 -> 0.372. (Converting the units after the k
  // step's multiplies instead of right after the loads measured the same:
  // the driver's compiler schedules them alike.)
  // `buffer` (static, identity layout) as 16-byte words, made before the
  // launch.
  auto wordView = [&](Value buffer) -> Value {
    auto type = cast<MemRefType>(buffer.getType());
    OpBuilder outside(launch);
    return UnrealizedConversionCastOp::create(
               outside, loc,
               MemRefType::get({type.getNumElements() * elementBytes / 16},
                               copyType),
               buffer)
        .getResult(0);
  };
  Value flat[2], words[2];
  int64_t reductionRank = view.reduction.loops.size();
  for (const Staging &st : staging) {
    Value input = op.getDpsInputs()[st.operand];
    auto type = dyn_cast<MemRefType>(input.getType());
    AffineMap map = op.getIndexingMapsArray()[st.operand];
    // Views (a collapse_shape of the batch into rows) stay in the kernel,
    // where fold-memref-alias-ops folds them into the indices.
    Value buffer = contiguousBuffer(input);
    if (config.packedConv || !st.alongK || fusion.padded[st.operand] ||
        fusion.prologue[st.operand] || !type || !buffer ||
        !type.hasStaticShape() || !type.getLayout().isIdentity() ||
        map.getNumResults() < reductionRank)
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
    if (kSize % 8 == 0 && (inElement.isF32() || inElement.isF16())) {
      words[st.operand] = wordView(buffer);
      continue;
    }
    OpBuilder outside(launch);
    flat[st.operand] =
        UnrealizedConversionCastOp::create(
            outside, loc,
            MemRefType::get({type.getNumElements()}, type.getElementType()),
            buffer)
            .getResult(0);
  }
  // Channels-last operands (an NHWC convolution's input, padded or not):
  // the innermost dimension is indexed by the innermost reduction loop
  // alone, a multiple of 8 long, so a unit is 8 neighbouring elements of
  // one row (one pixel and tap), 16-byte aligned: one index computation
  // and one or two 16-byte loads instead of eight of each (the per-element
  // path below).
  Value channelWords[2];
  SmallVector<int64_t> channelShape[2];
  for (const Staging &st : staging) {
    if (config.packedConv || !st.alongK || fusion.prologue[st.operand] ||
        flat[st.operand] || words[st.operand] ||
        !(inElement.isF32() || inElement.isF16()))
      continue;
    const std::optional<PaddedInput> &padded = fusion.padded[st.operand];
    Value source = padded ? padded->source : op.getDpsInputs()[st.operand];
    Value buffer = contiguousBuffer(source);
    auto type = dyn_cast<MemRefType>(source.getType());
    AffineMap map = op.getIndexingMapsArray()[st.operand];
    auto innermost = dyn_cast<AffineDimExpr>(map.getResults().back());
    int64_t inner = view.reduction.sizes.back();
    if (!type || !type.hasStaticShape() || !type.getLayout().isIdentity() ||
        !buffer || !innermost ||
        innermost.getPosition() != view.reduction.loops.back() ||
        inner % 8 != 0 || type.getShape().back() != inner ||
        (padded && (padded->low.back() != 0 || padded->sizes.back() != inner)))
      continue;
    channelShape[st.operand].assign(type.getShape().begin(),
                                    type.getShape().end());
    channelWords[st.operand] = wordView(buffer);
  }
  // Operands whose units run along the group (not k) and whose innermost
  // dimensions are the group's innermost loops one to one (loops of one
  // iteration left out, as a 1x1 convolution's taps): those dimensions
  // hold a run of neighbouring elements in memory, and where that is a
  // multiple of 8 a unit (8 neighbouring elements of the group, its first
  // a multiple of 8) is one (f16) or two (f32) aligned 16-byte words
  // instead of 8 elements loaded apart (an NCHW pointwise convolution's
  // pixels: all of an image's, H x W). On an H200 at precision high
  // (alternated in one call, GPU time): resnet50 at batch 32 5.79 -> 5.68
  // ms, its unpacked 1x1 convolutions 64 -> 256 at 56x56 113 -> 99 us, 256
  // -> 64 87 -> 77, 512 -> 128 at 28x28 88 -> 77; other models within
  // 1%. (Loading those units two steps ahead, or k steps of 32 instead of
  // 16, measured no faster: resnet50 5.70 and 5.85 ms.)
  Value columnWords[2];
  SmallVector<int64_t> loopRanges = op.getStaticLoopRanges();
  for (const Staging &st : staging) {
    Value input = op.getDpsInputs()[st.operand];
    Value buffer = contiguousBuffer(input);
    auto type = dyn_cast<MemRefType>(input.getType());
    if (config.packedConv || st.alongK || fusion.padded[st.operand] ||
        fusion.prologue[st.operand] || !type || !type.hasStaticShape() ||
        !type.getLayout().isIdentity() || !buffer || st.group->isDynamic() ||
        !(inElement.isF32() || inElement.isF16()))
      continue;
    AffineMap map = op.getIndexingMapsArray()[st.operand];
    SmallVector<AffineExpr> unitLoops;
    for (auto [loop, range] : llvm::enumerate(loopRanges))
      unitLoops.push_back(range == 1 ? getAffineConstantExpr(0, op.getContext())
                                     : getAffineDimExpr(loop, op.getContext()));
    map = simplifyAffineMap(map.replaceDimsAndSymbols(
        unitLoops, {}, map.getNumDims(), map.getNumSymbols()));
    int64_t run = 1;
    auto loopIt = st.group->loops.rbegin();
    for (int64_t d = map.getNumResults() - 1;
         d >= 0 && loopIt != st.group->loops.rend(); --d, ++loopIt) {
      auto dim = dyn_cast<AffineDimExpr>(map.getResult(d));
      if (!dim || dim.getPosition() != *loopIt ||
          type.getDimSize(d) != loopRanges[*loopIt])
        break;
      run *= type.getDimSize(d);
    }
    if (run < 8 || run % 8 != 0)
      continue;
    columnWords[st.operand] = wordView(buffer);
  }
  // Units along a loop group whose innermost loop has a multiple of 8
  // iterations never cross into the next value of the outer loops: the
  // unit's elements differ in the innermost loop only.
  auto unitsStayInRow = [&](const Group &group) {
    return !group.isDynamic() && group.sizes.back() > 0 &&
           group.sizes.back() % 8 == 0;
  };
  // A unit as loaded, converted to the fragments' type only after the k
  // step's multiplies, so that the loads' latency hides behind them:
  // 8 elements with their conditions (elements out of bounds read as
  // zero), or 16-byte words with one condition for all (a packed unit's
  // planes, or a flat operand's words).
  struct RawUnit {
    SmallVector<Value> values, oks;
    bool isWords = false, isPacked = false;
  };
  // A unit as 16-byte words of `view` (one f16 word, two f32 ones) from
  // the element at linear index `first` (a multiple of 8), valid where
  // `ok`.
  auto loadWords = [&](OpBuilder &ob, RawUnit &unit, Value view, Value first,
                       Value ok) {
    Value word =
        arith::DivUIOp::create(ob, loc, first, cst(ob, 16 / elementBytes));
    unit.isWords = true;
    unit.oks.push_back(ok);
    for (int64_t w = 0; w < elementBytes / 2; ++w)
      unit.values.push_back(memref::LoadOp::create(
          ob, loc, view,
          ValueRange{arith::AddIOp::create(ob, loc, word, cst(ob, w))}));
  };
  // The loops of the first element of a unit along `group` (not k), from
  // `start` + `unitStart`, clamped to the group's last whole unit (its
  // size a multiple of 8), at k `k0` + `row`; and whether the unit is in
  // range.
  auto groupUnitLoops = [&](OpBuilder &ob, const Group &group, Value start,
                            Value unitStart, Value k0,
                            Value row) -> std::pair<SmallVector<Value>, Value> {
    Value first = arith::AddIOp::create(ob, loc, start, unitStart);
    Value gOk = arith::CmpIOp::create(ob, loc, arith::CmpIPredicate::ult, first,
                                      cst(ob, group.size()));
    Value safe =
        arith::MinUIOp::create(ob, loc, first, cst(ob, group.size() - 8));
    auto [kIndex, kOk] =
        fx::clampIndex(ob, loc, arith::AddIOp::create(ob, loc, k0, row), kSize);
    SmallVector<Value> loops = batchLoops;
    setLoops(ob, group, safe, loops);
    setLoops(ob, view.reduction, kIndex, loops);
    return {loops, arith::AndIOp::create(ob, loc, gOk, kOk)};
  };
  // Loads this thread's units of the k step from `k0`.
  auto loadStep = [&](OpBuilder &ob, Value k0) {
    SmallVector<RawUnit> raw;
    forEachUnit(ob, [&](const Staging &st, Value row, Value col) {
      Value start = st.group == &view.rows ? tileRow : tileCol;
      Value unitStart = arith::MulIOp::create(ob, loc, col, cst(ob, 8));
      RawUnit &unit = raw.emplace_back();
      auto finish = [&](Value value, Value ok) {
        unit.values.push_back(value);
        unit.oks.push_back(ok);
      };
      if (config.packedConv) {
        // A packed unit: k runs over (kh, kw, c / 8) units, the filter's
        // [KH][KW][C/8] (the reduction loops are c, kh, kw).
        ArrayRef<int64_t> filter =
            cast<MemRefType>(op.getDpsInputs()[1].getType()).getShape();
        int64_t groups = filter[1] / 8;
        auto [gIndex, gOk] =
            clamp(ob, arith::AddIOp::create(ob, loc, start, row), *st.group);
        auto [kUnit, kOk] = fx::clampIndex(
            ob, loc,
            arith::AddIOp::create(
                ob, loc, arith::DivUIOp::create(ob, loc, k0, cst(ob, 8)), col),
            filter[2] * filter[3] * groups);
        SmallVector<Value> tap = fx::delinearize(
            ob, loc, kUnit, ArrayRef<int64_t>{filter[2], filter[3], groups});
        SmallVector<Value> loops = batchLoops;
        setLoops(ob, *st.group, gIndex, loops);
        loops[view.reduction.loops[0]] =
            arith::MulIOp::create(ob, loc, tap[2], cst(ob, 8));
        loops[view.reduction.loops[1]] = tap[0];
        loops[view.reduction.loops[2]] = tap[1];
        SmallVector<Value> at = indices(ob, st.operand, loops);
        if (st.operand == 0 && packStride > 1)
          for (int d : {2, 3})
            at[d] = arith::DivUIOp::create(ob, loc, at[d], cst(ob, packStride));
        Value address =
            packedAddress(ob, st.operand, at[0], at[2], at[3], tap[2]);
        unit.isWords = unit.isPacked = true;
        unit.oks.push_back(arith::AndIOp::create(ob, loc, gOk, kOk));
        for (int64_t plane = 0; plane < (high ? 2 : 1); ++plane)
          unit.values.push_back(memref::LoadOp::create(
              ob, loc, packedView[st.operand],
              ValueRange{plane ? arith::AddIOp::create(
                                     ob, loc, address,
                                     cst(ob, packedUnits[st.operand]))
                                     .getResult()
                               : address}));
        return;
      }
      if (Value channelView = channelWords[st.operand]) {
        auto [loops, ok] = elementLoops(
            ob, *st.group, arith::AddIOp::create(ob, loc, start, row),
            arith::AddIOp::create(ob, loc, k0, unitStart));
        SmallVector<Value> at = indices(ob, st.operand, loops);
        if (const std::optional<PaddedInput> &padded =
                fusion.padded[st.operand])
          at = indicesInPaddedSource(ob, loc, *padded, at, ok);
        loadWords(ob, unit, channelView,
                  fx::linearize(ob, loc, at, channelShape[st.operand]), ok);
        return;
      }
      if (Value columns = columnWords[st.operand]) {
        // All 8 elements are neighbours in memory.
        auto [loops, ok] =
            groupUnitLoops(ob, *st.group, start, unitStart, k0, row);
        auto type = cast<MemRefType>(op.getDpsInputs()[st.operand].getType());
        loadWords(ob, unit, columns,
                  fx::linearize(ob, loc, indices(ob, st.operand, loops),
                                type.getShape()),
                  ok);
        return;
      }
      if (flat[st.operand] || words[st.operand]) {
        // The unit's row once; its elements at consecutive k.
        auto [gIndex, gOk] =
            clamp(ob, arith::AddIOp::create(ob, loc, start, row), *st.group);
        SmallVector<Value> loops = batchLoops;
        setLoops(ob, *st.group, gIndex, loops);
        for (unsigned d : view.reduction.loops)
          loops[d] = zero;
        auto type = cast<MemRefType>(op.getDpsInputs()[st.operand].getType());
        Value base = fx::linearize(ob, loc, indices(ob, st.operand, loops),
                                   type.getShape());
        Value kFirst = arith::AddIOp::create(ob, loc, k0, unitStart);
        if (Value view = words[st.operand]) {
          // The unit's first k is a multiple of 8, as k is: the unit is
          // whole inside k or outside it.
          auto [kIndex, kOk] = fx::clampIndex(ob, loc, kFirst, kSize);
          loadWords(ob, unit, view,
                    arith::AddIOp::create(ob, loc, base, kIndex),
                    arith::AndIOp::create(ob, loc, gOk, kOk));
          return;
        }
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
        // The others step the innermost loop.
        auto [loops, unitOk] =
            groupUnitLoops(ob, *st.group, start, unitStart, k0, row);
        unsigned inner = st.group->loops.back();
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
          auto [loops, ok] = elementLoops(
              ob, *st.group, arith::AddIOp::create(ob, loc, start, g),
              arith::AddIOp::create(ob, loc, k0, kk));
          Value value = loadGemmInput(ob, loc, op, fusion, st.operand,
                                      indices(ob, st.operand, loops), ok);
          finish(value, ok);
        }
      }
    });
    return raw;
  };
  // The loaded units as staged units (and bf16x3's low parts after each).
  auto convertStep = [&](OpBuilder &ob, ArrayRef<RawUnit> raw) {
    SmallVector<Value> packed;
    Value zeroValue =
        arith::ConstantOp::create(ob, loc, ob.getZeroAttr(inElement));
    Value none = arith::ConstantOp::create(
        ob, loc, DenseElementsAttr::get(copyType, ob.getI32IntegerAttr(0)));
    for (const RawUnit &unit : raw) {
      SmallVector<Value> values;
      if (unit.isWords) {
        Value okLanes = vector::BroadcastOp::create(
            ob, loc, VectorType::get({4}, ob.getI1Type()), unit.oks[0]);
        SmallVector<Value> selected;
        for (Value word : unit.values)
          selected.push_back(
              arith::SelectOp::create(ob, loc, okLanes, word, none));
        // Packed units and f16 words are staged as they are.
        if (unit.isPacked || elementBytes == 2) {
          packed.append(selected);
          continue;
        }
        for (Value word : selected) {
          Value lanes = vector::BitCastOp::create(
              ob, loc, VectorType::get({4}, f32), word);
          for (int64_t lane = 0; lane < 4; ++lane)
            values.push_back(vector::ExtractOp::create(
                ob, loc, lanes, ArrayRef<int64_t>{lane}));
        }
      } else {
        for (auto [value, ok] : llvm::zip(unit.values, unit.oks))
          values.push_back(
              ok ? arith::SelectOp::create(ob, loc, ok, value, zeroValue)
                       .getResult()
                 : value);
      }
      Value low;
      packed.push_back(packUnit(ob, values, low));
      if (high)
        packed.push_back(low);
    }
    return packed;
  };
  auto storeStep = [&](OpBuilder &ob, ArrayRef<Value> packed) {
    size_t next = 0;
    forEachUnit(ob, [&](const Staging &st, Value row, Value col) {
      Value index = arith::AddIOp::create(
          ob, loc, arith::MulIOp::create(ob, loc, row, cst(ob, st.stride())),
          col);
      int s = &st == &staging[0] ? 0 : 1;
      for (int part = 0; part < (high ? 2 : 1); ++part)
        memref::StoreOp::create(
            ob, loc, packed[next++], tileBuffer,
            ValueRange{arith::AddIOp::create(ob, loc, index,
                                             cst(ob, tileOffset[s][part]))});
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

  // This workgroup's range of k: all of it, or its split's part.
  int64_t k = view.reduction.size();
  int64_t kSpan = llvm::divideCeil(k, config.k) * config.k;
  Value kBegin = zero, kEnd = cst(body, kSpan);
  if (config.splits > 1) {
    kBegin =
        arith::MulIOp::create(body, loc, split, cst(body, config.kPerSplit));
    kEnd = arith::MinUIOp::create(
        body, loc,
        arith::AddIOp::create(body, loc, kBegin, cst(body, config.kPerSplit)),
        kEnd);
  }
  Value kLast = arith::SubIOp::create(body, loc, kEnd, cst(body, config.k));
  // The multiplies of the k step staged in workgroup memory.
  auto multiplyStep = [&](OpBuilder &lb, SmallVector<Value> &acc) {
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
                    cst(lb, kk / 8 + tileOffset[s][part]))
                    .getResult()
              : arith::AddIOp::create(
                    lb, loc, cst(lb, kk * st.stride() + tileOffset[s][part]),
                    arith::DivUIOp::create(lb, loc, first, cst(lb, 8)))
                    .getResult();
      // A is M x K: row-major when its rows are tile rows (units along k).
      // B is K x N: row-major when its rows are k (units along n).
      bool columnMajor = s == 0 ? !st.alongK : st.alongK;
      return gpu::SubgroupMmaLoadMatrixOp::create(
          lb, loc, type, tileBuffer, ValueRange{index},
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
  };
  // Replaces the staged step with `raw`'s units once every subgroup has
  // read it.
  auto restage = [&](OpBuilder &lb, ArrayRef<RawUnit> raw) {
    SmallVector<Value> packed = convertStep(lb, raw);
    gpu::BarrierOp::create(lb, loc);
    storeStep(lb, packed);
    gpu::BarrierOp::create(lb, loc);
  };
  // The step from `k0` + `ahead` k steps, or the last one (a load that is
  // never multiplied rather than a branch).
  auto stepAhead = [&](OpBuilder &lb, Value k0, int64_t ahead) {
    return arith::MinUIOp::create(
        lb, loc, arith::AddIOp::create(lb, loc, k0, cst(lb, ahead * config.k)),
        kLast);
  };
  int64_t numAcc = config.fragsM * config.fragsN;
  storeStep(body, convertStep(body, loadStep(body, kBegin)));
  gpu::BarrierOp::create(body, loc);
  scf::ForOp loop;
  if (!config.twoAhead) {
    loop =
        scf::ForOp::create(body, loc, kBegin, kEnd, cst(body, config.k), init);
    OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
    SmallVector<RawUnit> staged =
        loadStep(lb, stepAhead(lb, loop.getInductionVar(), 1));
    SmallVector<Value> acc(loop.getRegionIterArgs());
    multiplyStep(lb, acc);
    restage(lb, staged);
    scf::YieldOp::create(lb, loc, acc);
  } else {
    // Two steps per iteration, each step's units loaded two steps before
    // they are staged: the loads of a step have two steps' multiplies to
    // arrive instead of one. The units loaded in an iteration's second
    // half travel to the next iteration as loop values (they are the
    // first half's, which dies before, so the registers are reused
    // without copies that would wait for the loads).
    auto flatten = [](ArrayRef<RawUnit> raw) {
      SmallVector<Value> values;
      for (const RawUnit &unit : raw) {
        values.append(unit.values);
        values.append(unit.oks);
      }
      return values;
    };
    auto unflatten = [](ArrayRef<RawUnit> shape, ValueRange values) {
      SmallVector<RawUnit> raw;
      for (const RawUnit &unit : shape) {
        RawUnit &next = raw.emplace_back(unit);
        for (Value &v : next.values) {
          v = values.front();
          values = values.drop_front();
        }
        for (Value &v : next.oks) {
          v = values.front();
          values = values.drop_front();
        }
      }
      return raw;
    };
    SmallVector<RawUnit> first = loadStep(body, stepAhead(body, kBegin, 1));
    SmallVector<Value> carried = flatten(first);
    init.append(carried);
    loop = scf::ForOp::create(body, loc, kBegin, kEnd, cst(body, 2 * config.k),
                              init);
    OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
    Value k0 = loop.getInductionVar();
    SmallVector<RawUnit> ahead =
        unflatten(first, loop.getRegionIterArgs().drop_front(numAcc));
    SmallVector<RawUnit> second = loadStep(lb, stepAhead(lb, k0, 2));
    SmallVector<Value> acc(loop.getRegionIterArgs().take_front(numAcc));
    multiplyStep(lb, acc);
    restage(lb, ahead);
    // The second step, where the range has one.
    Value more = arith::CmpIOp::create(
        lb, loc, arith::CmpIPredicate::ult,
        arith::AddIOp::create(lb, loc, k0, cst(lb, config.k)), kEnd);
    SmallVector<Type> types = llvm::to_vector(ValueRange(acc).getTypes());
    SmallVector<Value> secondFlat = flatten(second);
    llvm::append_range(types, ValueRange(secondFlat).getTypes());
    auto guard = scf::IfOp::create(lb, loc, types, more, /*withElse=*/true);
    {
      OpBuilder tb = guard.getThenBodyBuilder();
      SmallVector<RawUnit> third = loadStep(tb, stepAhead(tb, k0, 3));
      SmallVector<Value> acc2 = acc;
      multiplyStep(tb, acc2);
      restage(tb, second);
      llvm::append_range(acc2, flatten(third));
      scf::YieldOp::create(tb, loc, acc2);
      OpBuilder eb = guard.getElseBodyBuilder();
      SmallVector<Value> same = acc;
      llvm::append_range(same, secondFlat);
      scf::YieldOp::create(eb, loc, same);
    }
    scf::YieldOp::create(lb, loc, guard.getResults());
  }

  SmallVector<Value> accFrags(loop.getResults().take_front(numAcc));
  // The launch's body: under split-k summed in the kernel, the epilogue is
  // built into the last workgroup's branch (`body` moves there).
  OpBuilder launchBody = body;
  // Results leave through workgroup memory a fragment row at a time: each
  // subgroup stores its fragsN fragments of row i as one strip of 16 x
  // (fragsN * 16) f32 (its own region of `tileBuffer`, rows of stripUnits
  // 16-byte units and a unit of padding), and after one barrier each lane takes
  // four neighbouring columns of a strip row per pass: one 16-byte load from
  // workgroup memory and, where the output's columns run contiguously in memory
  // in multiples of four (vectorView), one 16-byte store per destination. A
  // lane keeps its columns in every pass, so their output indices are computed
  // once per fragment row, outside the store guards (from clamped indices).
  // (Before, a fragment at a time with two barriers each, a lane stored
  // one element per pass: the outputs left at about 0.8 TB/s. On an H200
  // at precision high, GPU time: a 1x1 convolution 32x64x56x56 -> 256
  // writing its 103 MB 141 -> 103 us, a linear layer 100352x64 -> 256 227
  // -> 83 us, a 4096^3 one 91 TFLOP/s, resnet50 at batch 32 8.21 -> 7.45
  // ms, densenet121 at batch 16 5.92 -> 5.34 ms.)
  int64_t stripUnits = config.fragsN * kFrag / 4;
  assert(kSubgroupSize % stripUnits == 0 && "a strip row spans whole lanes");
  int64_t rowsPerPass = kSubgroupSize / stripUnits;
  int64_t passes = kFrag / rowsPerPass;
  Value strip = arith::MulIOp::create(body, loc, subgroup,
                                      cst(body, kFrag * stripStride(config)));
  Value lane =
      arith::RemUIOp::create(body, loc, threadId, cst(body, kSubgroupSize));
  Value laneUnit =
      arith::RemUIOp::create(body, loc, lane, cst(body, stripUnits));
  Value laneRow =
      arith::DivUIOp::create(body, loc, lane, cst(body, stripUnits));
  Type outElement = getElementTypeOrSelf(op.getDpsInits()[0].getType());
  // The product of the column group's innermost loops that are the
  // output's innermost dimensions in order: columns run contiguously in
  // memory within such a run (a convolution's H x W, a matmul's N).
  AffineMap outMap = op.getIndexingMapsArray()[2];
  int64_t contiguousRun = 1;
  for (int64_t g = int64_t(view.cols.loops.size()) - 1,
               d = int64_t(outMap.getNumResults()) - 1;
       g >= 0 && d >= 0; --g, --d) {
    auto dim = dyn_cast<AffineDimExpr>(outMap.getResult(d));
    if (!dim || dim.getPosition() != view.cols.loops[g])
      break;
    contiguousRun *= view.cols.sizes[g];
  }
  // Four neighbouring columns from a multiple of four lie in one run (and
  // at an element offset that is a multiple of four) when the run is.
  bool vectorColumns = contiguousRun % 4 == 0 && view.cols.size() % 4 == 0;
  // A view of `buffer` as 16-byte units, where a lane's four elements are
  // one: the whole buffer (no view), static, f32, indexed like the output.
  llvm::DenseMap<Value, Value> unitViews;
  auto vectorView = [&](Value buffer) -> Value {
    if (!vectorColumns)
      return Value();
    if (Value known = unitViews.lookup(buffer))
      return known;
    auto type = dyn_cast<MemRefType>(buffer.getType());
    auto outType = cast<MemRefType>(op.getDpsInits()[0].getType());
    Value source = contiguousBuffer(buffer);
    if (!type || !type.getElementType().isF32() || !type.hasStaticShape() ||
        !type.getLayout().isIdentity() ||
        type.getShape() != outType.getShape() || !source)
      return Value();
    OpBuilder outside(launch);
    Value units =
        UnrealizedConversionCastOp::create(
            outside, loc,
            MemRefType::get({type.getNumElements() / 4}, copyType), source)
            .getResult(0);
    unitViews[buffer] = units;
    return units;
  };
  // The unit of a vectorView at output indices `index` (the first of four).
  auto unitIndex = [&](OpBuilder &ob, Value buffer, ArrayRef<Value> index) {
    Value linear = fx::linearize(ob, loc, index,
                                 cast<MemRefType>(buffer.getType()).getShape());
    return arith::DivUIOp::create(ob, loc, linear, cst(ob, 4)).getResult();
  };
  // Where this lane's four elements of pass `pass` of fragment row i go:
  // the first one's output indices (from clamped rows and columns) and
  // whether it is in bounds, its clamped row and column. The other three's
  // indices are computed only where something is read or written element
  // by element (elementOf): indices kept for all four made the kernel hold
  // more registers, and a batch-32 ResNet's 3x3 convolutions at 14x14 (one
  // wave of workgroups) 37% slower on an H200.
  struct Run {
    SmallVector<Value> index;
    Value ok, row, rowOk, col;
  };
  auto firstColumn = [&](OpBuilder &ob) -> Value {
    return arith::AddIOp::create(
        ob, loc, tileCol,
        arith::AddIOp::create(
            ob, loc, blockCol,
            arith::MulIOp::create(ob, loc, laneUnit, cst(ob, 4))));
  };
  auto runAt = [&](OpBuilder &ob, int64_t i, int64_t pass) {
    Value rowIndex = arith::AddIOp::create(
        ob, loc, tileRow,
        arith::AddIOp::create(
            ob, loc, blockRow,
            arith::AddIOp::create(ob, loc, laneRow,
                                  cst(ob, i * kFrag + pass * rowsPerPass))));
    auto [row, rowOk] = clamp(ob, rowIndex, view.rows);
    auto [col, colOk] = clamp(ob, firstColumn(ob), view.cols);
    SmallVector<Value> loops = batchLoops;
    setLoops(ob, view.cols, col, loops);
    setLoops(ob, view.rows, row, loops);
    return Run{indices(ob, 2, loops),
               arith::AndIOp::create(ob, loc, rowOk, colOk), row, rowOk, col};
  };
  // Element e of a run: its output indices, whether it is in bounds and
  // its clamped column.
  struct Element {
    SmallVector<Value> index;
    Value ok, col;
  };
  auto elementOf = [&](OpBuilder &ob, const Run &run, int64_t e) {
    if (e == 0)
      return Element{run.index, run.ok, run.col};
    auto [col, colOk] =
        clamp(ob, arith::AddIOp::create(ob, loc, firstColumn(ob), cst(ob, e)),
              view.cols);
    SmallVector<Value> loops = batchLoops;
    setLoops(ob, view.cols, col, loops);
    setLoops(ob, view.rows, run.row, loops);
    return Element{indices(ob, 2, loops),
                   arith::AndIOp::create(ob, loc, run.rowOk, colOk), col};
  };
  // Whether `map` (an epilogue input's) reads the same element for the
  // four columns of a run: it uses no column loop.
  auto sameForRun = [&](AffineMap map) {
    return llvm::none_of(view.cols.loops,
                         [&](unsigned d) { return map.isFunctionOfDim(d); });
  };
  // Loads `buffer` (indexed like the output) at the four elements of
  // `run`: one unit where it has a vectorView, else element by element.
  auto loadFour = [&](OpBuilder &ob, Value buffer,
                      const Run &run) -> SmallVector<Value> {
    SmallVector<Value> values;
    if (Value units = vectorView(buffer)) {
      Value unit = memref::LoadOp::create(
          ob, loc, units, ValueRange{unitIndex(ob, buffer, run.index)});
      Value lanes =
          vector::BitCastOp::create(ob, loc, VectorType::get({4}, f32), unit);
      for (int64_t e = 0; e < 4; ++e)
        values.push_back(
            vector::ExtractOp::create(ob, loc, lanes, ArrayRef<int64_t>{e}));
      return values;
    }
    for (int64_t e = 0; e < 4; ++e)
      values.push_back(
          memref::LoadOp::create(ob, loc, buffer, elementOf(ob, run, e).index));
    return values;
  };
  // The epilogue's inputs other than the accumulator (null) at the four
  // elements of `run`, per element one value per input.
  auto loadEpilogueInputs = [&](OpBuilder &ob, const Run &run) {
    SmallVector<SmallVector<Value>> perElement(4);
    linalg::GenericOp epilogue = fusion.epilogue;
    for (OpOperand *input : epilogue.getDpsInputOperands()) {
      AffineMap map = epilogue.getMatchingIndexingMap(input);
      auto indicesAt = [&](ArrayRef<Value> index) {
        return operandIndices(ob, loc, epilogue, input->getOperandNumber(),
                              index, /*zero=*/Value());
      };
      SmallVector<Value> four;
      if (readsAccumulator(op, epilogue, input)) {
        four.assign(4, Value());
      } else if (map.isIdentity() && vectorView(input->get())) {
        four = loadFour(ob, input->get(), run);
      } else if (sameForRun(map)) {
        // A per-channel parameter: one load for the four.
        four.assign(4, memref::LoadOp::create(ob, loc, input->get(),
                                              indicesAt(run.index)));
      } else {
        for (int64_t e = 0; e < 4; ++e)
          four.push_back(memref::LoadOp::create(
              ob, loc, input->get(), indicesAt(elementOf(ob, run, e).index)));
      }
      for (int64_t e = 0; e < 4; ++e)
        perElement[e].push_back(four[e]);
    }
    return perElement;
  };
  // Stores four values of `buffer` at the elements of `run`: one unit
  // under the run's guard where it has a vectorView, else each element
  // under its own.
  auto storeFour = [&](OpBuilder &ob, Value buffer, ArrayRef<Value> values,
                       const Run &run) {
    if (Value units = vectorView(buffer)) {
      Value unitIndexValue = unitIndex(ob, buffer, run.index);
      Value vec = vector::FromElementsOp::create(
          ob, loc, VectorType::get({4}, f32), values);
      Value unit = vector::BitCastOp::create(ob, loc, copyType, vec);
      auto guard = scf::IfOp::create(ob, loc, run.ok, /*withElse=*/false);
      OpBuilder gb = guard.getThenBodyBuilder();
      memref::StoreOp::create(gb, loc, unit, units, unitIndexValue);
      return;
    }
    for (int64_t e = 0; e < 4; ++e) {
      Element element = elementOf(ob, run, e);
      auto guard = scf::IfOp::create(ob, loc, element.ok, /*withElse=*/false);
      OpBuilder gb = guard.getThenBodyBuilder();
      memref::StoreOp::create(gb, loc, values[e], buffer, element.index);
    }
  };
  // Stores this subgroup's fragments of fragment row i into its strip, for
  // every subgroup's lanes to take after the barrier.
  auto stageFragmentRow = [&](int64_t i) {
    for (int64_t j = 0; j < config.fragsN; ++j)
      gpu::SubgroupMmaStoreMatrixOp::create(
          body, loc, accFrags[i * config.fragsN + j], tileBuffer,
          ValueRange{arith::AddIOp::create(body, loc, strip, cst(body, j * 4))},
          body.getIndexAttr(stripStride(config)), UnitAttr());
    gpu::BarrierOp::create(body, loc);
  };
  // The 16-byte unit of this lane's strip that it takes in pass `pass`.
  auto stripUnit = [&](OpBuilder &ob, int64_t pass) -> Value {
    return arith::AddIOp::create(
        ob, loc, strip,
        arith::AddIOp::create(
            ob, loc,
            arith::MulIOp::create(
                ob, loc,
                arith::AddIOp::create(ob, loc, laneRow,
                                      cst(ob, pass * rowsPerPass)),
                cst(ob, stripStride(config))),
            laneUnit));
  };
  // The unit of split `splitIndex`'s partial sums of this tile that this
  // lane stores in pass `pass` of fragment row i.
  Value tileLinear;
  auto partialUnit = [&](OpBuilder &ob, Value splitIndex, int64_t i,
                         int64_t pass) -> Value {
    Value tileSplit = arith::AddIOp::create(
        ob, loc,
        arith::MulIOp::create(ob, loc, tileLinear, cst(ob, config.splits)),
        splitIndex);
    Value rowPass = arith::AddIOp::create(
        ob, loc,
        arith::MulIOp::create(ob, loc, tileSplit,
                              cst(ob, config.fragsM * passes)),
        cst(ob, i * passes + pass));
    return arith::AddIOp::create(
        ob, loc,
        arith::MulIOp::create(ob, loc, rowPass, cst(ob, config.threads())),
        threadId);
  };
  // Split-k summed in the kernel: every workgroup stores its tile, unit by
  // unit as the lanes take them from the strips, as its split's part of
  // the tile's partial sums, then counts itself in the tile's counter; the
  // last of the tile's workgroups to arrive loads the units of all the
  // splits, adds them up and goes on to the epilogue, as the only
  // workgroup of an unsplit tile would. The stores are made visible
  // device-wide before the count, and the count before the loads (CUDA's
  // threadfence reduction). Each lane stores and loads whole coalesced
  // units, so the sums come out as the split-k sum kernel's did, to the
  // bit.
  SmallVector<Value> summed;
  if (tilePartials) {
    tileLinear = fx::linearize(
        body, loc,
        {batchLinear, launch.getBlockIds().y, launch.getBlockIds().x},
        ArrayRef<int64_t>{view.batch.size(), gridRows, gridCols});
    for (int64_t i = 0; i < config.fragsM; ++i) {
      stageFragmentRow(i);
      for (int64_t pass = 0; pass < passes; ++pass)
        memref::StoreOp::create(
            body, loc,
            memref::LoadOp::create(body, loc, tileBuffer,
                                   ValueRange{stripUnit(body, pass)}),
            tilePartials, ValueRange{partialUnit(body, split, i, pass)});
      gpu::BarrierOp::create(body, loc);
    }
    auto deviceBarrier = [&](OpBuilder &ob) {
      spirv::MemoryBarrierOp::create(ob, loc, spirv::Scope::Device,
                                     spirv::MemorySemantics::AcquireRelease |
                                         spirv::MemorySemantics::UniformMemory);
    };
    deviceBarrier(body);
    gpu::BarrierOp::create(body, loc);
    Type i32 = body.getI32Type();
    Value lastFlag = memref::AllocOp::create(
        body, loc,
        MemRefType::get({1}, i32, AffineMap(),
                        body.getI64IntegerAttr(kWorkgroupMemorySpace)));
    Value firstThread = arith::CmpIOp::create(
        body, loc, arith::CmpIPredicate::eq, threadId, zero);
    auto count = scf::IfOp::create(body, loc, firstThread, /*withElse=*/false);
    {
      OpBuilder tb = count.getThenBodyBuilder();
      Value before = memref::AtomicRMWOp::create(
          tb, loc, arith::AtomicRMWKind::addi,
          arith::ConstantIntOp::create(tb, loc, i32, 1), arrivals,
          ValueRange{tileLinear});
      Value last = arith::CmpIOp::create(
          tb, loc, arith::CmpIPredicate::eq, before,
          arith::ConstantIntOp::create(tb, loc, i32, config.splits - 1));
      auto reset = scf::IfOp::create(tb, loc, last, /*withElse=*/false);
      OpBuilder rb = reset.getThenBodyBuilder();
      memref::StoreOp::create(rb, loc,
                              arith::ConstantIntOp::create(rb, loc, i32, 0),
                              arrivals, ValueRange{tileLinear});
      memref::StoreOp::create(tb, loc,
                              arith::ExtUIOp::create(tb, loc, i32, last),
                              lastFlag, ValueRange{zero});
    }
    gpu::BarrierOp::create(body, loc);
    Value isLast = arith::CmpIOp::create(
        body, loc, arith::CmpIPredicate::ne,
        memref::LoadOp::create(body, loc, lastFlag, ValueRange{zero}),
        arith::ConstantIntOp::create(body, loc, i32, 0));
    auto sum = scf::IfOp::create(body, loc, isLast, /*withElse=*/false);
    body = sum.getThenBodyBuilder();
    deviceBarrier(body);
    // The last workgroup's sums of its lanes' units over the splits: a loop
    // of two splits per iteration, each loading all the lane's units of
    // both. (Every split's units loaded at once, unrolled, was slower:
    // 0.556 against 0.464 ms for resnet18 with all its convolutions summed
    // here.)
    auto vec4 = VectorType::get({4}, f32);
    Value zeros = arith::ConstantOp::create(body, loc, vec4,
                                            DenseElementsAttr::get(vec4, 0.0f));
    SmallVector<Value> sums(config.fragsM * passes, zeros);
    auto addSplit = [&](OpBuilder &ob, Value splitIndex,
                        SmallVector<Value> &acc) {
      SmallVector<Value> parts;
      for (int64_t i = 0; i < config.fragsM; ++i)
        for (int64_t pass = 0; pass < passes; ++pass)
          parts.push_back(vector::BitCastOp::create(
              ob, loc, vec4,
              memref::LoadOp::create(
                  ob, loc, tilePartials,
                  ValueRange{partialUnit(ob, splitIndex, i, pass)})));
      for (auto [a, part] : llvm::zip(acc, parts))
        a = arith::AddFOp::create(ob, loc, a, part);
    };
    int64_t pairs = config.splits / 2;
    auto pairLoop = scf::ForOp::create(body, loc, zero, cst(body, pairs),
                                       cst(body, 1), sums);
    {
      OpBuilder lb = OpBuilder::atBlockBegin(pairLoop.getBody());
      SmallVector<Value> acc(pairLoop.getRegionIterArgs());
      Value first = arith::MulIOp::create(lb, loc, pairLoop.getInductionVar(),
                                          cst(lb, 2));
      addSplit(lb, first, acc);
      addSplit(lb, arith::AddIOp::create(lb, loc, first, cst(lb, 1)), acc);
      scf::YieldOp::create(lb, loc, acc);
    }
    summed.assign(pairLoop.getResults().begin(), pairLoop.getResults().end());
    if (config.splits % 2)
      addSplit(body, cst(body, config.splits - 1), summed);
  }
  // The epilogue's other inputs (a residual) of all the lane's elements are
  // loaded before the first fragment leaves, all at once: loaded per
  // fragment, between the fragments' barriers, their latency added up. On
  // an H200 at precision high, a 1x1 convolution 32x64x56x56 -> 256 with a
  // residual add and ReLU went from 326 to 188 us (with a bias only: 154
  // -> 143 us), resnet50 at batch 32 from 9.00 to 8.25 ms.
  // (Indexed by i * passes + pass; empty without them.)
  SmallVector<SmallVector<SmallVector<Value>>> epilogueInputs;
  if (!partial && fusion.epilogue)
    for (int64_t i = 0; i < config.fragsM; ++i)
      for (int64_t pass = 0; pass < passes; ++pass)
        epilogueInputs.push_back(
            loadEpilogueInputs(body, runAt(body, i, pass)));
  for (int64_t i = 0; i < config.fragsM; ++i) {
    if (!tilePartials)
      stageFragmentRow(i);
    // Per pass: the values to store and where; stores after all the loads
    // of the fragment row.
    struct Pending {
      Run run;
      SmallVector<Value> acc, epilogue;
    };
    SmallVector<Pending> pending;
    for (int64_t pass = 0; pass < passes; ++pass) {
      Value lanes = tilePartials
                        ? summed[i * passes + pass]
                        : vector::BitCastOp::create(
                              body, loc, VectorType::get({4}, f32),
                              memref::LoadOp::create(body, loc, tileBuffer,
                                                     stripUnit(body, pass)))
                              .getResult();
      Run run = runAt(body, i, pass);
      SmallVector<Value> values;
      for (int64_t e = 0; e < 4; ++e)
        values.push_back(
            vector::ExtractOp::create(body, loc, lanes, ArrayRef<int64_t>{e}));
      if (partial) {
        for (int64_t e = 0; e < 4; ++e) {
          Element element = elementOf(body, run, e);
          auto guard =
              scf::IfOp::create(body, loc, element.ok, /*withElse=*/false);
          OpBuilder gb = guard.getThenBodyBuilder();
          memref::StoreOp::create(
              gb, loc, values[e], partial,
              ValueRange{split, batchLinear, run.row, element.col});
        }
        continue;
      }
      if (outElement != f32)
        for (Value &value : values)
          value = arith::TruncFOp::create(body, loc, outElement, value);
      // linalg accumulates into the output's initial value.
      if (!fusion.zeroInit) {
        SmallVector<Value> initial = loadFour(body, op.getDpsInits()[0], run);
        for (auto [value, init] : llvm::zip(values, initial))
          value = arith::AddFOp::create(body, loc, init, value);
      }
      Pending &next = pending.emplace_back();
      next.run = run;
      for (int64_t e = 0; e < 4; ++e) {
        // The epilogue's inputs are loaded: the indices go unused.
        GemmResult result = computeGemmResult(
            body, loc, op, fusion, values[e], run.index,
            epilogueInputs.empty()
                ? ArrayRef<Value>()
                : ArrayRef<Value>(epilogueInputs[i * passes + pass][e]));
        next.acc.push_back(result.acc);
        if (result.epilogue)
          next.epilogue.push_back(result.epilogue);
      }
    }
    for (Pending &p : pending) {
      if (fusion.storeAccumulator || !fusion.epilogue)
        storeFour(body, op.getDpsInits()[0], p.acc, p.run);
      if (fusion.epilogue)
        storeFour(body, linalg::GenericOp(fusion.epilogue).getDpsInits()[0],
                  p.epilogue, p.run);
    }
    gpu::BarrierOp::create(body, loc);
  }
  gpu::TerminatorOp::create(launchBody, loc);
  if (partial)
    buildSplitSum(b, partial);
  op->erase();
}

} // namespace mlir::fx::matmul
