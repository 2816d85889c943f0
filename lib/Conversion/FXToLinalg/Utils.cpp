//===- Utils.cpp - helpers shared by the FX to linalg patterns ------------===//

#include "Utils.h"

#include "fx/Dialect/FX/IR/FXTypeUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "llvm/ADT/APFloat.h"

#include <cmath>

using namespace mlir;
using namespace mlir::fx;

Type tolinalg::getComputeType(Type elementType) {
  if (elementType.isF16() || elementType.isBF16())
    return Float32Type::get(elementType.getContext());
  return elementType;
}

Value tolinalg::convertScalar(OpBuilder &b, Location loc, Value value,
                              Type to) {
  Type from = value.getType();
  if (from == to)
    return value;
  auto fromFloat = dyn_cast<FloatType>(from);
  auto toFloat = dyn_cast<FloatType>(to);
  if (to.isInteger(1)) {
    if (fromFloat)
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, value,
                                   createScalarConstant(b, loc, from, 0));
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, value,
                                 createScalarConstant(b, loc, from, 0));
  }
  if (from.isInteger(1)) {
    // Bools are 0 or 1, never -1.
    if (toFloat)
      return arith::UIToFPOp::create(b, loc, to, value);
    return arith::ExtUIOp::create(b, loc, to, value);
  }
  if (fromFloat && toFloat) {
    if (fromFloat.getWidth() < toFloat.getWidth())
      return arith::ExtFOp::create(b, loc, to, value);
    if (fromFloat.getWidth() > toFloat.getWidth())
      return arith::TruncFOp::create(b, loc, to, value);
    // f16 <-> bf16 goes through f32.
    Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), value);
    return arith::TruncFOp::create(b, loc, to, wide);
  }
  if (fromFloat)
    return arith::FPToSIOp::create(b, loc, to, value);
  if (toFloat)
    return arith::SIToFPOp::create(b, loc, to, value);
  if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
    return arith::ExtSIOp::create(b, loc, to, value);
  return arith::TruncIOp::create(b, loc, to, value);
}

Value tolinalg::createScalarConstant(OpBuilder &b, Location loc, Type type,
                                     double value) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(floatType, value));
  if (type.isIndex())
    return arith::ConstantIndexOp::create(b, loc, static_cast<int64_t>(value));
  if (type.isInteger(1))
    return arith::ConstantOp::create(b, loc, b.getBoolAttr(value != 0));
  return arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(type, static_cast<int64_t>(value)));
}

Value tolinalg::createExtremeConstant(OpBuilder &b, Location loc, Type type,
                                      bool lowest) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(
        b, loc,
        b.getFloatAttr(floatType, llvm::APFloat::getInf(
                                      floatType.getFloatSemantics(), lowest)));
  unsigned width = type.getIntOrFloatBitWidth();
  if (width == 1)
    return arith::ConstantOp::create(b, loc, b.getBoolAttr(!lowest));
  APInt extreme = lowest ? APInt::getSignedMinValue(width)
                         : APInt::getSignedMaxValue(width);
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, extreme));
}

static bool isBool(Value v) { return v.getType().isInteger(1); }
static bool isFloatValue(Value v) { return isa<FloatType>(v.getType()); }

Value tolinalg::createAdd(OpBuilder &b, Location loc, Value x, Value y) {
  if (isFloatValue(x))
    return arith::AddFOp::create(b, loc, x, y);
  if (isBool(x))
    return arith::OrIOp::create(b, loc, x, y);
  return arith::AddIOp::create(b, loc, x, y);
}

Value tolinalg::createSub(OpBuilder &b, Location loc, Value x, Value y) {
  if (isFloatValue(x))
    return arith::SubFOp::create(b, loc, x, y);
  return arith::SubIOp::create(b, loc, x, y);
}

Value tolinalg::scaleByReciprocal(OpBuilder &b, Location loc, Value x,
                                  Value d) {
  Value one = createScalarConstant(b, loc, d.getType(), 1);
  return arith::MulFOp::create(b, loc, x,
                               arith::DivFOp::create(b, loc, one, d));
}

Value tolinalg::createMul(OpBuilder &b, Location loc, Value x, Value y) {
  if (isFloatValue(x))
    return arith::MulFOp::create(b, loc, x, y);
  if (isBool(x))
    return arith::AndIOp::create(b, loc, x, y);
  return arith::MulIOp::create(b, loc, x, y);
}

Value tolinalg::createMaximum(OpBuilder &b, Location loc, Value x, Value y,
                              arith::FastMathFlags fastmath) {
  if (isFloatValue(x))
    return arith::MaximumFOp::create(b, loc, x, y, fastmath);
  if (isBool(x))
    return arith::OrIOp::create(b, loc, x, y);
  return arith::MaxSIOp::create(b, loc, x, y);
}

Value tolinalg::createShiftMaximum(OpBuilder &b, Location loc, Value x,
                                   Value y) {
  return arith::MaxNumFOp::create(b, loc, x, y, arith::FastMathFlags::nsz);
}

Value tolinalg::createMinimum(OpBuilder &b, Location loc, Value x, Value y,
                              arith::FastMathFlags fastmath) {
  if (isFloatValue(x))
    return arith::MinimumFOp::create(b, loc, x, y, fastmath);
  if (isBool(x))
    return arith::AndIOp::create(b, loc, x, y);
  return arith::MinSIOp::create(b, loc, x, y);
}

SmallVector<OpFoldResult> tolinalg::getSizes(OpBuilder &b, Location loc,
                                             Value value) {
  return tensor::getMixedSizes(b, loc, value);
}

Value tolinalg::getIndexValue(OpBuilder &b, Location loc, OpFoldResult size) {
  return getValueOrCreateConstantIndexOp(b, loc, size);
}

Value tolinalg::createEmpty(OpBuilder &b, Location loc, RankedTensorType type,
                            ArrayRef<OpFoldResult> sizes) {
  SmallVector<Value> dynamic;
  for (auto [i, size] : llvm::enumerate(sizes))
    if (type.isDynamicDim(i))
      dynamic.push_back(getIndexValue(b, loc, size));
  return tensor::EmptyOp::create(b, loc, type, dynamic);
}

Value tolinalg::createFilled(OpBuilder &b, Location loc, RankedTensorType type,
                             ArrayRef<OpFoldResult> sizes, Value value) {
  Value empty = createEmpty(b, loc, type, sizes);
  return linalg::FillOp::create(b, loc, value, empty).getResult(0);
}

Value tolinalg::createElementwise(OpBuilder &b, Location loc, Operation *op,
                                  ValueRange inputs,
                                  RankedTensorType resultType,
                                  ScalarBody body) {
  int64_t rank = resultType.getRank();
  MLIRContext *ctx = b.getContext();
  SmallVector<OpFoldResult> resultSizes(rank);
  for (int64_t i = 0; i < rank; ++i)
    if (!resultType.isDynamicDim(i))
      resultSizes[i] = b.getIndexAttr(resultType.getDimSize(i));

  // Indexing maps; dynamic result sizes come from the first operand that
  // has a dynamic, non-broadcast dimension there.
  SmallVector<AffineMap> maps;
  SmallVector<std::pair<Value, Value>> checks; // (operand size, result size)
  SmallVector<std::pair<unsigned, int64_t>> checkOrigin;
  for (auto [idx, input] : llvm::enumerate(inputs)) {
    auto type = cast<RankedTensorType>(input.getType());
    int64_t offset = rank - type.getRank();
    SmallVector<AffineExpr> exprs;
    for (int64_t j = 0; j < type.getRank(); ++j) {
      int64_t i = j + offset;
      int64_t size = type.getDimSize(j);
      bool broadcast = size == 1 && resultType.getDimSize(i) != 1;
      exprs.push_back(broadcast ? getAffineConstantExpr(0, ctx)
                                : getAffineDimExpr(i, ctx));
      if (!ShapedType::isDynamic(size))
        continue;
      Value dim = tensor::DimOp::create(b, loc, input, j);
      if (!resultSizes[i]) {
        resultSizes[i] = dim;
        continue;
      }
      checks.push_back({dim, getIndexValue(b, loc, resultSizes[i])});
      checkOrigin.push_back({static_cast<unsigned>(idx), j});
    }
    maps.push_back(AffineMap::get(rank, 0, exprs, ctx));
  }
  for (auto [check, origin] : llvm::zip_equal(checks, checkOrigin)) {
    Value equal = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        check.first, check.second);
    std::string message;
    llvm::raw_string_ostream os(message);
    os << op->getName() << " at " << op->getLoc() << ": dimension "
       << origin.second << " of operand " << origin.first
       << " does not match the broadcast result size (broadcasting a "
          "dynamic dimension of run-time size 1 is not supported)";
    cf::AssertOp::create(b, loc, equal, message);
  }
  for (int64_t i = 0; i < rank; ++i)
    assert(resultSizes[i] && "dynamic result dim without a dynamic operand");

  maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
  Value init = createEmpty(b, loc, resultType, resultSizes);
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, inputs, ValueRange{init}, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value result = body(nb, nloc, args.drop_back());
        linalg::YieldOp::create(nb, nloc, result);
      });
  return generic.getResult(0);
}

Value tolinalg::convertTensor(OpBuilder &b, Location loc, Operation *op,
                              Value input, Type elementType) {
  auto type = cast<RankedTensorType>(input.getType());
  if (type.getElementType() == elementType)
    return input;
  return createElementwise(b, loc, op, input, type.clone(elementType),
                           [&](OpBuilder &nb, Location nloc, ValueRange args) {
                             return convertScalar(nb, nloc, args[0],
                                                  elementType);
                           });
}

Value tolinalg::reshapeTo(OpBuilder &b, Location loc, Value input,
                          RankedTensorType resultType,
                          ArrayRef<OpFoldResult> resultSizes) {
  auto inputType = cast<RankedTensorType>(input.getType());
  if (inputType == resultType)
    return input;
  // Collapse to 1-D (a rank-0 tensor has one element).
  Value flat = input;
  if (inputType.getRank() != 1) {
    int64_t numel = inputType.hasStaticShape() ? inputType.getNumElements()
                                               : ShapedType::kDynamic;
    auto flatType = RankedTensorType::get({numel}, inputType.getElementType());
    if (inputType.getRank() == 0) {
      flat = tensor::ExpandShapeOp::create(
          b, loc, flatType, input, ArrayRef<ReassociationIndices>{},
          ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
    } else {
      SmallVector<ReassociationIndices> reassociation(1);
      for (int64_t i = 0; i < inputType.getRank(); ++i)
        reassociation[0].push_back(i);
      flat = tensor::CollapseShapeOp::create(b, loc, flatType, input,
                                             reassociation);
    }
  }
  // expand_shape needs the 1-D size to be dynamic exactly when some result
  // size is.
  int64_t flatSize = resultType.hasStaticShape()
                         ? std::max<int64_t>(resultType.getNumElements(), 0)
                         : ShapedType::kDynamic;
  auto flatType =
      RankedTensorType::get({flatSize}, resultType.getElementType());
  if (flat.getType() != flatType)
    flat = tensor::CastOp::create(b, loc, flatType, flat);
  if (resultType.getRank() == 1)
    return flat.getType() == resultType
               ? flat
               : tensor::CastOp::create(b, loc, resultType, flat).getResult();
  if (resultType.getRank() == 0)
    return tensor::CollapseShapeOp::create(b, loc, resultType, flat,
                                           ArrayRef<ReassociationIndices>{});
  SmallVector<ReassociationIndices> reassociation(1);
  SmallVector<OpFoldResult> outputShape;
  for (int64_t i = 0; i < resultType.getRank(); ++i) {
    reassociation[0].push_back(i);
    // expand_shape wants static sizes as attributes.
    outputShape.push_back(resultType.isDynamicDim(i)
                              ? resultSizes[i]
                              : b.getIndexAttr(resultType.getDimSize(i)));
  }
  return tensor::ExpandShapeOp::create(b, loc, resultType, flat, reassociation,
                                       outputShape);
}

Value tolinalg::createGeneric(OpBuilder &b, Location loc, ValueRange inputs,
                              ArrayRef<AffineMap> inputMaps,
                              RankedTensorType resultType,
                              ArrayRef<OpFoldResult> resultSizes,
                              ScalarBody body) {
  int64_t rank = resultType.getRank();
  SmallVector<AffineMap> maps(inputMaps);
  maps.push_back(AffineMap::getMultiDimIdentityMap(rank, b.getContext()));
  Value init = createEmpty(b, loc, resultType, resultSizes);
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, TypeRange{resultType}, inputs, ValueRange{init}, maps,
             iterators,
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               linalg::YieldOp::create(nb, nloc,
                                       body(nb, nloc, args.drop_back()));
             })
      .getResult(0);
}

AffineMap tolinalg::getDropDimsMap(MLIRContext *ctx, int64_t rank,
                                   ArrayRef<int64_t> dims) {
  SmallVector<AffineExpr> exprs;
  for (int64_t i = 0; i < rank; ++i)
    if (!llvm::is_contained(dims, i))
      exprs.push_back(getAffineDimExpr(i, ctx));
  return AffineMap::get(rank, 0, exprs, ctx);
}

Value tolinalg::createReduction(OpBuilder &b, Location loc, Value input,
                                ArrayRef<int64_t> dims, Type accType,
                                Value init, Combiner combine) {
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank();
  SmallVector<int64_t> shape;
  SmallVector<OpFoldResult> sizes;
  SmallVector<OpFoldResult> inputSizes = getSizes(b, loc, input);
  SmallVector<utils::IteratorType> iterators;
  for (int64_t i = 0; i < rank; ++i) {
    bool reduced = llvm::is_contained(dims, i);
    iterators.push_back(reduced ? utils::IteratorType::reduction
                                : utils::IteratorType::parallel);
    if (reduced)
      continue;
    shape.push_back(type.getDimSize(i));
    sizes.push_back(inputSizes[i]);
  }
  auto resultType = RankedTensorType::get(shape, accType);
  Value acc = createFilled(b, loc, resultType, sizes, init);
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps = {AffineMap::getMultiDimIdentityMap(rank, ctx),
                                 getDropDimsMap(ctx, rank, dims)};
  return linalg::GenericOp::create(
             b, loc, TypeRange{resultType}, ValueRange{input}, ValueRange{acc},
             maps, iterators,
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               Value element = convertScalar(nb, nloc, args[0], accType);
               linalg::YieldOp::create(nb, nloc,
                                       combine(nb, nloc, element, args[1]));
             })
      .getResult(0);
}

Value tolinalg::getElementCount(OpBuilder &b, Location loc, Value value,
                                ArrayRef<int64_t> dims) {
  Value count = arith::ConstantIndexOp::create(b, loc, 1);
  for (int64_t d : dims)
    count = arith::MulIOp::create(b, loc, count,
                                  tensor::DimOp::create(b, loc, value, d));
  return count;
}

Value tolinalg::padTensor(OpBuilder &b, Location loc, Value input,
                          ArrayRef<int64_t> low, ArrayRef<int64_t> high,
                          Value value) {
  if (llvm::all_of(low, [](int64_t p) { return p == 0; }) &&
      llvm::all_of(high, [](int64_t p) { return p == 0; }))
    return input;
  auto toAttrs = [&](ArrayRef<int64_t> pads) {
    return llvm::map_to_vector(
        pads, [&](int64_t p) -> OpFoldResult { return b.getIndexAttr(p); });
  };
  return tensor::PadOp::create(b, loc, Type(), input, toAttrs(low),
                               toAttrs(high), value);
}
