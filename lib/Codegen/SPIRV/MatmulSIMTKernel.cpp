//===- MatmulSIMTKernel.cpp - tiled GEMM kernel ---------------------------===//
//
// The SIMT kernel: workgroups tile the output and stage tiles of both
// operands through workgroup memory, loading the next k step's while they
// multiply this one's; each thread accumulates a block of the tile in
// registers; split-k adds a second kernel for the partial sums.
//
//===----------------------------------------------------------------------===//

#include "MatmulKernels.h"

namespace mlir::fx::matmul {

GemmKernelBuilder::TileCopy
GemmKernelBuilder::planTileCopy(OpBuilder &b, unsigned operand,
                                const Group &group, int64_t count, Value start,
                                Value shared, int64_t width) {
  TileCopy copy{operand, &group, count, start, shared, {}, {}, {}, width};
  // Neighbouring threads walk the operand's innermost dimension, so that
  // their loads coalesce.
  bool groupFastest = isInnermost(operand, group);
  int64_t units = count / width;
  for (int64_t pass = 0; pass < units * tile.k / kThreads; ++pass) {
    Value e = arith::AddIOp::create(b, loc, threadId, cst(b, pass * kThreads));
    SmallVector<Value> parts =
        fx::delinearize(b, loc, e,
                        groupFastest ? ArrayRef<int64_t>{tile.k, units}
                                     : ArrayRef<int64_t>{units, tile.k});
    Value unit = groupFastest ? parts[1] : parts[0];
    Value kk = groupFastest ? parts[0] : parts[1];
    copy.units.push_back(unit);
    Value first =
        width > 1 ? arith::MulIOp::create(b, loc, unit, cst(b, width)) : unit;
    for (int64_t w = 0; w < width; ++w) {
      copy.elements.push_back(
          w ? arith::AddIOp::create(b, loc, first, cst(b, w)).getResult()
            : first);
      copy.ks.push_back(kk);
    }
  }
  return copy;
}

SmallVector<Value>
GemmKernelBuilder::loadTile(OpBuilder &b, const TileCopy &copy, Value kStart) {
  Type element = getElementTypeOrSelf(op->getOperand(copy.operand).getType());
  SmallVector<Value> values;
  for (auto [kk, g] : llvm::zip_equal(copy.ks, copy.elements)) {
    auto [loops, ok] = elementLoops(
        b, *copy.group, arith::AddIOp::create(b, loc, copy.start, g),
        arith::AddIOp::create(b, loc, kStart, kk));
    Value value = loadGemmInput(b, loc, op, fusion, copy.operand,
                                indices(b, copy.operand, loops), ok);
    Value zeroValue = arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
    values.push_back(arith::SelectOp::create(b, loc, ok, value, zeroValue));
  }
  return values;
}

void GemmKernelBuilder::storeTile(OpBuilder &b, const TileCopy &copy,
                                  ValueRange values) {
  if (copy.width == 1) {
    for (auto [value, kk, g] : llvm::zip_equal(values, copy.ks, copy.elements))
      memref::StoreOp::create(b, loc, value, copy.shared, ValueRange{kk, g});
    return;
  }
  auto type = VectorType::get({copy.width}, values.front().getType());
  for (auto [u, unit] : llvm::enumerate(copy.units)) {
    Value vector = vector::FromElementsOp::create(
        b, loc, type, values.slice(u * copy.width, copy.width));
    memref::StoreOp::create(b, loc, vector, copy.shared,
                            ValueRange{copy.ks[u * copy.width], unit});
  }
}

void GemmKernelBuilder::build() {
  OpBuilder b(op);
  int64_t threadsN = tile.n / tile.perThreadN;
  int64_t threadsM = tile.m / tile.perThreadM;
  Value c1 = cst(b, 1);
  Value out = op.getDpsInits()[0];
  Type accType = getElementTypeOrSelf(out.getType());
  Value partial;
  if (tile.splits > 1)
    partial = allocatePartialSums(b, tile.splits);
  // A dynamic batch: the host computes the grid from the loops' sizes
  // (never split over k, chooseTile).
  extents.assign(op.getNumLoops(), Value());
  SmallVector<int64_t> staticRanges = op.getStaticLoopRanges();
  if (llvm::any_of(staticRanges, ShapedType::isDynamic)) {
    SmallVector<Range> ranges = op.createLoopRanges(b, loc);
    for (auto [d, range] : llvm::enumerate(ranges))
      if (ShapedType::isDynamic(staticRanges[d]))
        extents[d] = getValueOrCreateConstantIndexOp(b, loc, range.size);
  }
  Value gridX, gridY, gridZ;
  if (view.cols.isDynamic())
    gridX = arith::CeilDivUIOp::create(b, loc, hostCount(b, view.cols),
                                       cst(b, tile.n));
  else
    gridX = cst(b, llvm::divideCeil(view.cols.size(), tile.n));
  if (view.rows.isDynamic())
    gridY = arith::CeilDivUIOp::create(b, loc, hostCount(b, view.rows),
                                       cst(b, tile.m));
  else
    gridY = cst(b, llvm::divideCeil(view.rows.size(), tile.m));
  if (view.batch.isDynamic())
    gridZ = hostCount(b, view.batch);
  else
    gridZ = cst(b, view.batch.size() * tile.splits);
  auto launch = gpu::LaunchOp::create(b, kernelLoc(), gridX, gridY, gridZ,
                                      cst(b, kThreads), c1, c1);
  OpBuilder body = OpBuilder::atBlockBegin(&launch.getBody().front());
  threadId = launch.getThreadIds().x;
  zero = cst(body, 0);
  // Split-k: the grid's z is (batch, split).
  Value batchLinear = launch.getBlockIds().z, split = zero;
  if (!view.batch.isDynamic()) {
    SmallVector<Value> batchAndSplit = fx::delinearize(
        body, loc, launch.getBlockIds().z, {view.batch.size(), tile.splits});
    batchLinear = batchAndSplit[0];
    split = batchAndSplit[1];
  }
  batchLoops.assign(op.getNumLoops(), Value());
  if (!view.batch.loops.empty())
    setLoops(body, view.batch, batchLinear, batchLoops);
  Value mStart = arith::MulIOp::create(body, loc, launch.getBlockIds().y,
                                       cst(body, tile.m));
  Value nStart = arith::MulIOp::create(body, loc, launch.getBlockIds().x,
                                       cst(body, tile.n));
  SmallVector<Value> rc =
      fx::delinearize(body, loc, threadId, {threadsM, threadsN});
  Value threadRow = rc[0], threadCol = rc[1];

  unsigned rowOperand = view.rowOperand, colOperand = 1 - view.rowOperand;
  // f32 tiles are stored in units of 4 neighbouring elements (16 bytes), a
  // thread's block of the output is 4-element units of rows and columns,
  // and a k step reads each unit with one 16-byte load from workgroup
  // memory: an 8x8 block, 4 loads per 64 multiply-adds instead of 16. On
  // an H200 at precision highest (GPU time, alternated in one device call):
  // a 4096^3 matmul 7.12 -> 4.87 ms (19.3 -> 28.2 TFLOP/s), resnet18 b1
  // 0.491 -> 0.478 ms, convnext_tiny 1.450 -> 1.417, a transformer encoder
  // 0.326 -> 0.309. Only for reductions of at least 128 per workgroup: a
  // thread's output columns are then 4 neighbours rather than every 16th,
  // so its stores coalesce less, which cost more than the loads saved
  // where a kernel mostly stores (a 1x1 convolution with k = 16 at
  // 112x112, 8.1 -> 11.8 us; split-k partial sums of 64 k each, the
  // encoder's 1024x256x256 at precision high, 11.1 -> 13.6 us).
  int64_t width = 1;
  auto unitsFit = [&](int64_t count) {
    int64_t units = count / 4;
    return count % 4 == 0 && units * tile.k >= kThreads &&
           units * tile.k % kThreads == 0;
  };
  if (getElementTypeOrSelf(op->getOperand(0).getType()).isF32() &&
      getElementTypeOrSelf(op->getOperand(1).getType()).isF32() &&
      tile.perThreadM % 4 == 0 && tile.perThreadN % 4 == 0 &&
      unitsFit(tile.m) && unitsFit(tile.n) && tile.kPerSplit >= 128)
    width = 4;
  // Tiles are stored k-major so that a thread's reads for one k step are
  // one row; a unit of padding keeps the transposing stores of k-fastest
  // loads off a single bank.
  auto workgroupBuffer = [&](unsigned operand, int64_t count) {
    Type element = getElementTypeOrSelf(op->getOperand(operand).getType());
    if (width > 1)
      element = VectorType::get({width}, element);
    return memref::AllocOp::create(
        body, loc,
        MemRefType::get({tile.k, count / width + 1}, element, AffineMap(),
                        body.getI64IntegerAttr(kWorkgroupMemorySpace)));
  };
  Value rowTile = workgroupBuffer(rowOperand, tile.m);
  Value colTile = workgroupBuffer(colOperand, tile.n);

  // The output block of this thread: rows threadRow + threadsM * i, columns
  // threadCol + threadsN * j (neighbouring threads, neighbouring columns);
  // with units, element i % 4 of unit threadRow + threadsM * (i / 4).
  SmallVector<SmallVector<Value>> rowLoops, colLoops;
  SmallVector<Value> rowOks, colOks, rowLinear, colLinear;
  auto ownLoops = [&](const Group &group, Value start, Value thread,
                      int64_t stride, int64_t count,
                      SmallVectorImpl<SmallVector<Value>> &loops,
                      SmallVectorImpl<Value> &oks,
                      SmallVectorImpl<Value> &linear) {
    for (int64_t i = 0; i < count; ++i) {
      Value local = arith::AddIOp::create(body, loc, thread,
                                          cst(body, stride * (i / width)));
      if (width > 1)
        local = arith::AddIOp::create(
            body, loc,
            arith::MulIOp::create(body, loc, local, cst(body, width)),
            cst(body, i % width));
      auto [index, ok] =
          clamp(body, arith::AddIOp::create(body, loc, start, local), group);
      SmallVector<Value> values(op.getNumLoops());
      setLoops(body, group, index, values);
      loops.push_back(values);
      oks.push_back(ok);
      linear.push_back(index);
    }
  };
  ownLoops(view.rows, mStart, threadRow, threadsM, tile.perThreadM, rowLoops,
           rowOks, rowLinear);
  ownLoops(view.cols, nStart, threadCol, threadsN, tile.perThreadN, colLoops,
           colOks, colLinear);
  auto outIndices = [&](int64_t i, int64_t j) {
    SmallVector<Value> loops = batchLoops;
    for (auto *group : {&view.rows, &view.cols})
      for (unsigned loop : group->loops)
        loops[loop] =
            group == &view.rows ? rowLoops[i][loop] : colLoops[j][loop];
    return indices(body, 2, loops);
  };
  // Accumulators start from the output's values (linalg accumulates into
  // its init); split-k partial sums start from zero.
  // With a zero initial value (GemmFusion) they start from zero too.
  SmallVector<Value> inits;
  Value accZero;
  bool fromZero = tile.splits > 1 || fusion.zeroInit;
  if (fromZero)
    accZero = arith::ConstantOp::create(body, loc, body.getZeroAttr(accType));
  for (int64_t i = 0; i < tile.perThreadM; ++i)
    for (int64_t j = 0; j < tile.perThreadN; ++j)
      inits.push_back(
          fromZero ? accZero
                   : memref::LoadOp::create(body, loc, out, outIndices(i, j))
                         .getResult());

  Value kBegin =
      arith::MulIOp::create(body, loc, split, cst(body, tile.kPerSplit));
  Value kEnd = arith::MinUIOp::create(
      body, loc,
      arith::AddIOp::create(body, loc, kBegin, cst(body, tile.kPerSplit)),
      cst(body, view.reduction.size()));
  // Software pipelining through registers: the first step's tiles are
  // copied before the loop, and each step loads the next step's elements
  // (where there is one: else their stores would wait for them) before it
  // multiplies, storing them to workgroup memory only after, so that the
  // loads' latency hides behind the step. One set of tiles, two barriers
  // a step as before. On an H200 at precision high, GPU time: convnext_tiny
  // 1.531 -> 1.442 ms (its batch-1 linear layers, 196x384x1536 split 11
  // ways, 24 -> 20 us), a transformer encoder 8x128x256 0.303 -> 0.298;
  // resnet18, mobilenet_v2, efficientnet_b0 unchanged. (Unguarded loads
  // of a step past the end cost efficientnet_b0's squeeze-and-excitation
  // convolutions 1.5 us each; a k step of 32 with it measured no faster
  // on convnext_tiny, slower on efficientnet_b0: 0.70 -> 0.75 ms.)
  TileCopy copies[2] = {
      planTileCopy(body, rowOperand, view.rows, tile.m, mStart, rowTile, width),
      planTileCopy(body, colOperand, view.cols, tile.n, nStart, colTile,
                   width)};
  for (const TileCopy &copy : copies)
    storeTile(body, copy, loadTile(body, copy, kBegin));
  gpu::BarrierOp::create(body, loc);
  auto kLoop =
      scf::ForOp::create(body, loc, kBegin, kEnd, cst(body, tile.k), inits);
  {
    OpBuilder kb = OpBuilder::atBlockBegin(kLoop.getBody());
    Value kStart = kLoop.getInductionVar();
    Value kNext = arith::AddIOp::create(kb, loc, kStart, cst(kb, tile.k));
    Value hasNext =
        arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::ult, kNext, kEnd);
    SmallVector<Type> types;
    for (const TileCopy &copy : copies)
      types.append(copy.ks.size(),
                   getElementTypeOrSelf(op->getOperand(copy.operand)));
    auto ifNext =
        scf::IfOp::create(kb, loc, types, hasNext, /*withElseRegion=*/true);
    OpBuilder tb = ifNext.getThenBodyBuilder();
    SmallVector<Value> loaded;
    for (const TileCopy &copy : copies)
      llvm::append_range(loaded, loadTile(tb, copy, kNext));
    scf::YieldOp::create(tb, loc, loaded);
    OpBuilder eb = ifNext.getElseBodyBuilder();
    SmallVector<Value> zeros;
    for (Type type : types)
      zeros.push_back(arith::ConstantOp::create(eb, loc, eb.getZeroAttr(type)));
    scf::YieldOp::create(eb, loc, zeros);
    ValueRange next = ifNext.getResults();
    auto inner = scf::ForOp::create(kb, loc, cst(kb, 0), cst(kb, tile.k),
                                    cst(kb, 1), kLoop.getRegionIterArgs());
    {
      OpBuilder ib = OpBuilder::atBlockBegin(inner.getBody());
      Value kk = inner.getInductionVar();
      SmallVector<Value> rowValues, colValues;
      // A thread's row (column) values of this k: one load per unit.
      auto readUnits = [&](Value tileBuffer, Value thread, int64_t stride,
                           int64_t count, SmallVectorImpl<Value> &values) {
        for (int64_t u = 0; u < count / width; ++u) {
          Value local =
              arith::AddIOp::create(ib, loc, thread, cst(ib, stride * u));
          Value loaded = memref::LoadOp::create(ib, loc, tileBuffer,
                                                ValueRange{kk, local});
          if (width == 1) {
            values.push_back(loaded);
            continue;
          }
          for (int64_t w = 0; w < width; ++w)
            values.push_back(vector::ExtractOp::create(ib, loc, loaded, w));
        }
      };
      readUnits(rowTile, threadRow, threadsM, tile.perThreadM, rowValues);
      readUnits(colTile, threadCol, threadsN, tile.perThreadN, colValues);
      // The op's own body computes each multiply-accumulate.
      Block &opBody = op->getRegion(0).front();
      SmallVector<Value> next;
      ValueRange accs = inner.getRegionIterArgs();
      for (int64_t i = 0; i < tile.perThreadM; ++i)
        for (int64_t j = 0; j < tile.perThreadN; ++j) {
          IRMapping mapping;
          mapping.map(opBody.getArgument(rowOperand), rowValues[i]);
          mapping.map(opBody.getArgument(colOperand), colValues[j]);
          mapping.map(opBody.getArgument(2), accs[i * tile.perThreadN + j]);
          for (Operation &bodyOp : opBody.without_terminator())
            ib.clone(bodyOp, mapping);
          next.push_back(
              mapping.lookupOrDefault(opBody.getTerminator()->getOperand(0)));
        }
      scf::YieldOp::create(ib, loc, next);
    }
    // The next step overwrites the tiles: everyone must be done reading.
    gpu::BarrierOp::create(kb, loc);
    size_t rowValues = copies[0].ks.size();
    storeTile(kb, copies[0], next.take_front(rowValues));
    storeTile(kb, copies[1], next.drop_front(rowValues));
    gpu::BarrierOp::create(kb, loc);
    scf::YieldOp::create(kb, loc, inner.getResults());
  }

  for (int64_t i = 0; i < tile.perThreadM; ++i)
    for (int64_t j = 0; j < tile.perThreadN; ++j) {
      Value ok = arith::AndIOp::create(body, loc, rowOks[i], colOks[j]);
      auto guard = scf::IfOp::create(body, loc, ok, /*withElse=*/false);
      OpBuilder gb = guard.getThenBodyBuilder();
      Value result = kLoop.getResult(i * tile.perThreadN + j);
      if (partial)
        memref::StoreOp::create(
            gb, loc, result, partial,
            ValueRange{split, batchLinear, rowLinear[i], colLinear[j]});
      else
        storeGemmResult(gb, loc, op, fusion, result, outIndices(i, j));
    }
  gpu::TerminatorOp::create(body, loc);
  if (partial)
    buildSplitSum(b, partial);
  op->erase();
}

// A second kernel rather than the GEMM kernel's last workgroup per output
// tile (an atomic counter per tile, CUDA's threadfence reduction): tried on
// an H200, that took resnet18 at batch 1 from 0.459 to 0.737 ms of GPU
// time (46 -> 26 dispatches) as its convolutions went from 14 to 32 us:
// one workgroup reading a 64x64 tile's partial sums of 6 splits is a
// chain of dependent loads at the end of each kernel, where this kernel
// spreads them over every SM. Nor as the prologue of a matmul that reads
// the result (the sum and the epilogue computed as that matmul loads each
// element, the sum's dispatch gone): on an H200, ConvNeXt's second linear
// layers then took 45.4 instead of 19.2 us each (the GELU and three partial
// sums per element, for each of six tile rows, without 16-byte loads), the
// model 1.243 -> 1.449 ms of GPU time. The tensor-core kernel sums up to
// kMaxSplitsSummedInKernel splits in its last workgroup per tile (see
// there); with more, the last workgroup's loads of every split's tile,
// after all the other workgroups, cost more than this kernel.
void GemmKernelBuilder::buildSplitSum(OpBuilder &b, Value partial) {
  if (buildSplitSumGeneric(b, partial))
    return;
  // One thread per output element: the output plus its partial sums, in
  // split order (the temporary's outermost dimension).
  int64_t splits = cast<MemRefType>(partial.getType()).getDimSize(0);
  fx::ElementLaunch launch = fx::createElementLaunch(
      b, fx::withKernelRole(kernelLoc(), "split-k sum"),
      view.batch.size() * view.rows.size() * view.cols.size(), kThreads);
  OpBuilder &gb = launch.guarded;
  Value index = launch.index;
  zero = cst(gb, 0);
  SmallVector<Value> brc = fx::delinearize(
      gb, loc, index, {view.batch.size(), view.rows.size(), view.cols.size()});
  SmallVector<Value> loops(op.getNumLoops());
  if (!view.batch.loops.empty())
    setLoops(gb, view.batch, brc[0], loops);
  setLoops(gb, view.rows, brc[1], loops);
  setLoops(gb, view.cols, brc[2], loops);
  Value out = op.getDpsInits()[0];
  SmallVector<Value> outIndex = indices(gb, 2, loops);
  Value acc =
      fusion.zeroInit
          ? arith::ConstantOp::create(
                gb, loc, gb.getZeroAttr(getElementTypeOrSelf(out.getType())))
                .getResult()
          : memref::LoadOp::create(gb, loc, out, outIndex).getResult();
  for (int64_t s = 0; s < splits; ++s)
    acc = arith::AddFOp::create(
        gb, loc, acc,
        memref::LoadOp::create(gb, loc, partial,
                               ValueRange{cst(gb, s), brc[0], brc[1], brc[2]}));
  storeGemmResult(gb, loc, op, fusion, acc, outIndex);
}

// The split-k sum of a matmul whose result a row kernel reads (a
// transformer's projections before their residual add and layer norm) as
// an elementwise linalg.generic tagged `fx.split_sum` instead of a kernel:
// fx-map-row-kernels-to-gpu then computes each element it reads from the
// partial sums (applying the epilogue), and the sum needs no dispatch of
// its own. The row kernel reads each element once, coalesced along the
// row, where a matmul reading it as an operand computed it once per tile
// (see above). Left in place, the generic becomes an elementwise kernel.
bool GemmKernelBuilder::splitSumInRowKernel() {
  // A plain [rows, cols] output, each group one loop, from zero.
  Value out = op.getDpsInits()[0];
  auto outType = dyn_cast<MemRefType>(out.getType());
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  MLIRContext *ctx = op->getContext();
  if (!linalg::isaContractionOpInterface(op) || !fusion.zeroInit ||
      (fusion.epilogue && fusion.storeAccumulator) || view.batch.size() != 1 ||
      view.rows.loops.size() != 1 || view.cols.loops.size() != 1 || !outType ||
      outType.getRank() != 2 || !outType.hasStaticShape() ||
      outMap.getNumResults() != 2 ||
      outMap.getResult(0) != getAffineDimExpr(view.rows.loops[0], ctx) ||
      outMap.getResult(1) != getAffineDimExpr(view.cols.loops[0], ctx))
    return false;
  linalg::GenericOp epilogue = fusion.epilogue;
  Value result = epilogue ? epilogue.getDpsInits()[0] : out;
  if (epilogue &&
      (!epilogue.getIndexingMapsArray().back().isIdentity() ||
       epilogue.getNumDpsInits() != 1 || epilogue.getNumLoops() != 2))
    return false;
  // Only where a row kernel reads the result (or an expand_shape of it).
  auto inRowKernel = [](Operation *user) {
    auto forall = user->getParentOfType<scf::ForallOp>();
    return forall && forall->hasAttr("fx.row_kernel");
  };
  return result.getDefiningOp<memref::AllocOp>() &&
         llvm::any_of(result.getUsers(), [&](Operation *user) {
           if (auto expand = dyn_cast<memref::ExpandShapeOp>(user))
             return llvm::any_of(expand->getUsers(), inRowKernel);
           return inRowKernel(user);
         });
}

bool GemmKernelBuilder::buildSplitSumGeneric(OpBuilder &b, Value partial) {
  if (!splitSumInRowKernel())
    return false;
  Value out = op.getDpsInits()[0];
  auto outType = cast<MemRefType>(out.getType());
  linalg::GenericOp epilogue = fusion.epilogue;
  Value result = epilogue ? epilogue.getDpsInits()[0] : out;

  int64_t splits = cast<MemRefType>(partial.getType()).getDimSize(0);
  MLIRContext *ctx = b.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(2, ctx);
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  for (int64_t split = 0; split < splits; ++split) {
    SmallVector<OpFoldResult> offsets = {b.getIndexAttr(split),
                                         b.getIndexAttr(0), b.getIndexAttr(0),
                                         b.getIndexAttr(0)};
    SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1), b.getIndexAttr(1),
                                       b.getIndexAttr(outType.getDimSize(0)),
                                       b.getIndexAttr(outType.getDimSize(1))};
    SmallVector<OpFoldResult> strides(4, b.getIndexAttr(1));
    auto viewType = memref::SubViewOp::inferRankReducedResultType(
        outType.getShape(), cast<MemRefType>(partial.getType()), offsets, sizes,
        strides);
    inputs.push_back(memref::SubViewOp::create(b, loc, viewType, partial,
                                               offsets, sizes, strides));
    maps.push_back(identity);
  }
  SmallVector<OpOperand *> others;
  if (epilogue)
    for (OpOperand *input : epilogue.getDpsInputOperands())
      if (!readsAccumulator(op, epilogue, input)) {
        others.push_back(input);
        inputs.push_back(input->get());
        maps.push_back(epilogue.getMatchingIndexingMap(input));
      }
  maps.push_back(identity);
  auto generic = linalg::GenericOp::create(
      b, fx::withKernelRole(kernelLoc(), "split-k sum"), TypeRange(), inputs,
      ValueRange{result}, maps,
      SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel));
  generic->setAttr("fx.split_sum", b.getUnitAttr());
  Block *body = b.createBlock(&generic.getRegion());
  OpBuilder bb = OpBuilder::atBlockBegin(body);
  Type element = outType.getElementType();
  Value sum;
  for (int64_t split = 0; split < splits; ++split) {
    Value value = body->addArgument(element, loc);
    sum = sum ? arith::AddFOp::create(bb, loc, sum, value).getResult() : value;
  }
  if (epilogue) {
    IRMapping mapping;
    Block &epilogueBody = epilogue.getRegion().front();
    for (OpOperand *input : others) {
      BlockArgument arg = epilogueBody.getArgument(input->getOperandNumber());
      mapping.map(arg, body->addArgument(arg.getType(), loc));
    }
    for (OpOperand *input : epilogue.getDpsInputOperands())
      if (readsAccumulator(op, epilogue, input))
        mapping.map(epilogueBody.getArgument(input->getOperandNumber()), sum);
    BlockArgument init = epilogueBody.getArguments().back();
    mapping.map(init, body->addArgument(init.getType(), loc));
    for (Operation &inner : epilogueBody.without_terminator())
      bb.clone(inner, mapping);
    sum = mapping.lookupOrDefault(epilogueBody.getTerminator()->getOperand(0));
  } else {
    body->addArgument(element, loc);
  }
  linalg::YieldOp::create(bb, loc, sum);
  b.setInsertionPointAfter(generic);
  return true;
}

} // namespace mlir::fx::matmul
