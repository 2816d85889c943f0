//===- ConcatInPlace.cpp - the fx-concat-in-place pass --------------------===//
//
// Concatenations share one tensor with the concatenations of their leading
// parts, and the parts' producers write straight into it (see the pass
// description in Passes.td).
//
//===----------------------------------------------------------------------===//

#include "fx/Transforms/LinalgUtils.h"
#include "fx/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXCONCATINPLACE
#include "fx/Transforms/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;

namespace {

/// A concatenation as convert-fx-to-linalg writes it: a chain of
/// tensor.insert_slice ops into a tensor.empty, each part a whole slab
/// along one dimension, together covering it.
struct Concat {
  tensor::EmptyOp empty;
  /// The chain in program order; the last one's result is the value.
  SmallVector<tensor::InsertSliceOp> inserts;
  /// The parts by offset along `dim`.
  SmallVector<Value> parts;
  SmallVector<int64_t> offsets;
  int64_t dim = -1;

  Value result() const {
    tensor::InsertSliceOp last = inserts.back();
    return last.getResult();
  }
  RankedTensorType type() const {
    return cast<RankedTensorType>(result().getType());
  }
};

/// The concatenation whose chain starts at `first` (an insertion into an
/// empty tensor, which CSE may have shared with other ops), if it is one.
std::optional<Concat> matchConcat(tensor::InsertSliceOp first) {
  auto empty = first.getDest().getDefiningOp<tensor::EmptyOp>();
  if (!empty)
    return std::nullopt;
  RankedTensorType type = empty.getType();
  if (!type.hasStaticShape())
    return std::nullopt;
  Concat concat;
  concat.empty = empty;
  Block *block = first->getBlock();
  struct Slab {
    int64_t offset;
    Value part;
  };
  SmallVector<Slab> slabs;
  for (tensor::InsertSliceOp insert = first; insert;) {
    ArrayRef<int64_t> offsets = insert.getStaticOffsets(),
                      sizes = insert.getStaticSizes();
    if (ShapedType::isDynamicShape(offsets) ||
        ShapedType::isDynamicShape(sizes) || !insert.hasUnitStride() ||
        insert.getSourceType().getRank() != type.getRank())
      return std::nullopt;
    // The one dimension this part does not span; a part spanning every
    // dimension is not a concatenation.
    int64_t dim = -1;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (offsets[d] == 0 && sizes[d] == type.getDimSize(d))
        continue;
      if (dim != -1)
        return std::nullopt;
      dim = d;
    }
    if (dim == -1 || (concat.dim != -1 && dim != concat.dim))
      return std::nullopt;
    concat.dim = dim;
    slabs.push_back({offsets[dim], insert.getSource()});
    concat.inserts.push_back(insert);
    // The next link: the one reader of this one, as its destination.
    Value value = insert.getResult();
    insert = nullptr;
    if (value.hasOneUse())
      if (auto next =
              dyn_cast<tensor::InsertSliceOp>(*value.getUsers().begin());
          next && next.getDest() == value && next->getBlock() == block)
        insert = next;
  }
  if (slabs.size() < 2)
    return std::nullopt;
  llvm::stable_sort(
      slabs, [](const Slab &a, const Slab &b) { return a.offset < b.offset; });
  // The slabs tile the dimension exactly.
  int64_t next = 0;
  for (const Slab &slab : slabs) {
    if (slab.offset != next)
      return std::nullopt;
    next += cast<RankedTensorType>(slab.part.getType()).getDimSize(concat.dim);
    concat.parts.push_back(slab.part);
    concat.offsets.push_back(slab.offset);
  }
  if (next != type.getDimSize(concat.dim))
    return std::nullopt;
  return concat;
}

/// Whether `prefix` concatenates the leading parts of `whole` (same
/// dimension, same sizes along the others).
bool isPrefixOf(const Concat &prefix, const Concat &whole) {
  if (prefix.dim != whole.dim || prefix.parts.size() >= whole.parts.size())
    return false;
  for (int64_t d = 0; d < whole.type().getRank(); ++d)
    if (d != whole.dim &&
        prefix.type().getDimSize(d) != whole.type().getDimSize(d))
      return false;
  return llvm::equal(prefix.parts,
                     ArrayRef(whole.parts).take_front(prefix.parts.size()));
}

/// The initial value of `part` written into `slab` (a slice of the shared
/// tensor) instead of the fresh tensor it was computed into, built before
/// the producer: the slab itself where that was a tensor.empty (whose
/// contents no element of the part depends on), a copy of the fill where
/// it was a constant fill of one. Null where the part's initial value is
/// anything else: then the part is copied into its slab.
Value rebaseDestination(RewriterBase &rewriter, OpOperand &destination,
                        function_ref<Value()> makeSlab,
                        DominanceInfo &dominance) {
  Operation *producer = destination.getOwner();
  Operation *init = destination.get().getDefiningOp();
  if (!init)
    return nullptr;
  if (isa<tensor::EmptyOp>(init))
    return makeSlab();
  if (init->getNumResults() != 1 || !fx::isConstantFill(init))
    return nullptr;
  OpOperand *fillDestination = fx::tiedDestination(init->getResult(0));
  if (!fillDestination ||
      !isa_and_present<tensor::EmptyOp>(fillDestination->get().getDefiningOp()))
    return nullptr;
  // The fill's constants must be available at the producer.
  llvm::SetVector<Value> used;
  for (Region &region : init->getRegions())
    getUsedValuesDefinedAbove(region, used);
  used.insert(init->operand_begin(), init->operand_end());
  for (Value value : used)
    if (value != fillDestination->get() &&
        !dominance.properlyDominates(value, producer))
      return nullptr;
  IRMapping mapping;
  mapping.map(fillDestination->get(), makeSlab());
  return rewriter.clone(*init, mapping)->getResult(0);
}

/// Erases `op` (a fill or an empty tensor) if nothing reads it any more,
/// and the empty tensor it filled likewise.
void eraseIfUnused(RewriterBase &rewriter, Operation *op) {
  if (!op || !op->use_empty())
    return;
  SmallVector<Operation *> inputs;
  for (Value operand : op->getOperands())
    if (Operation *def = operand.getDefiningOp();
        isa_and_present<tensor::EmptyOp>(def))
      inputs.push_back(def);
  rewriter.eraseOp(op);
  for (Operation *input : inputs)
    if (input->use_empty())
      rewriter.eraseOp(input);
}

struct ConcatInPlacePass
    : public fx::impl::FXConcatInPlaceBase<ConcatInPlacePass> {
  void runOnOperation() override {
    SmallVector<Concat> concats;
    getOperation().walk([&](tensor::InsertSliceOp insert) {
      if (std::optional<Concat> concat = matchConcat(insert))
        concats.push_back(std::move(*concat));
    });
    // Families: each concatenation joins the largest one it is a prefix
    // of (DenseNet: every layer reads the concatenation of the block's
    // input and all earlier layers' outputs).
    llvm::stable_sort(concats, [](const Concat &a, const Concat &b) {
      return a.parts.size() > b.parts.size();
    });
    SmallVector<SmallVector<const Concat *>> families;
    for (const Concat &concat : concats) {
      auto *family = llvm::find_if(families, [&](const auto &members) {
        return members.front()->inserts.front()->getBlock() ==
                   concat.inserts.front()->getBlock() &&
               isPrefixOf(concat, *members.front());
      });
      if (family != families.end())
        family->push_back(&concat);
      else
        families.push_back({&concat});
    }
    // A concatenation of concatenations keeps its inner ones as they are
    // (the outer one's parts would be replaced under it).
    llvm::SmallPtrSet<Value, 16> results;
    for (const Concat &concat : concats)
      results.insert(concat.result());
    DominanceInfo dominance(getOperation());
    IRRewriter rewriter(&getContext());
    llvm::SmallPtrSet<Operation *, 16> rebased;
    for (ArrayRef<const Concat *> family : families)
      if (llvm::none_of(family.front()->parts,
                        [&](Value part) { return results.contains(part); }))
        rewriteFamily(rewriter, family, dominance, rebased);
  }

  /// Builds the family's shared tensor as one chain of insertions, each
  /// part inserted right after it is computed, and replaces each member by
  /// a slice of the chain where it was.
  void rewriteFamily(IRRewriter &rewriter, ArrayRef<const Concat *> family,
                     DominanceInfo &dominance,
                     llvm::SmallPtrSetImpl<Operation *> &rebased) {
    const Concat &root = *family.front();
    Block *block = root.inserts.front()->getBlock();
    RankedTensorType type = root.type();
    int64_t rank = type.getRank();
    Location loc = root.result().getLoc();
    // Parts in the order they are computed (those from outside the block
    // first).
    auto position = [&](Value v) -> Operation * {
      Operation *def = v.getDefiningOp();
      return def && def->getBlock() == block ? def : nullptr;
    };
    SmallVector<unsigned> order(root.parts.size());
    std::iota(order.begin(), order.end(), 0);
    llvm::stable_sort(order, [&](unsigned a, unsigned b) {
      Operation *x = position(root.parts[a]), *y = position(root.parts[b]);
      if (!x || !y)
        return !x && y;
      return x->isBeforeInBlock(y);
    });
    rewriter.setInsertionPointToStart(block);
    Value chain = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                          type.getElementType());
    // The links of the chain, in order.
    SmallVector<Value> links;
    SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
    for (unsigned i : order) {
      Value part = root.parts[i];
      auto partType = cast<RankedTensorType>(part.getType());
      SmallVector<int64_t> offsets(rank, 0);
      offsets[root.dim] = root.offsets[i];
      SmallVector<OpFoldResult> offsetValues =
          getAsIndexOpFoldResult(&getContext(), offsets);
      SmallVector<OpFoldResult> sizeValues =
          getAsIndexOpFoldResult(&getContext(), partType.getShape());
      Operation *producer = position(part);
      // The producer computes the part into its slab of the chain, where
      // the chain so far is available before it and the producer's result
      // goes into no other slab.
      auto result = dyn_cast<OpResult>(part);
      OpOperand *destination =
          producer && producer->getNumResults() == 1 && !rebased.count(producer)
              ? fx::tiedDestination(result)
              : nullptr;
      if (destination && destination->get().getType() == partType &&
          dominance.properlyDominates(chain, producer)) {
        rewriter.setInsertionPoint(producer);
        Value init = rebaseDestination(
            rewriter, *destination,
            [&] {
              return tensor::ExtractSliceOp::create(rewriter, loc, partType,
                                                    chain, offsetValues,
                                                    sizeValues, strides)
                  .getResult();
            },
            dominance);
        if (init) {
          Operation *old = destination->get().getDefiningOp();
          rewriter.modifyOpInPlace(producer, [&] { destination->set(init); });
          rebased.insert(producer);
          eraseIfUnused(rewriter, old);
        }
      }
      // After the part and the chain so far, whichever comes later.
      Operation *last = chain.getDefiningOp();
      if (producer && last->isBeforeInBlock(producer))
        last = producer;
      rewriter.setInsertionPointAfter(last);
      chain = tensor::InsertSliceOp::create(rewriter, loc, part, chain,
                                            offsetValues, sizeValues, strides);
      links.push_back(chain);
    }
    // Each member reads the chain as it is where the member was: all its
    // parts are in by then (each is inserted right after it is computed,
    // before the member's own insertions used it).
    for (const Concat *member : family) {
      Operation *at = member->inserts.back();
      Value current;
      for (Value link : links)
        if (link.getDefiningOp()->isBeforeInBlock(at))
          current = link;
      rewriter.setInsertionPoint(at);
      Value replacement = current;
      if (member->type() != type) {
        SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
        SmallVector<OpFoldResult> sizes =
            getAsIndexOpFoldResult(&getContext(), member->type().getShape());
        replacement = tensor::ExtractSliceOp::create(
            rewriter, member->result().getLoc(), member->type(), current,
            offsets, sizes, strides);
      }
      rewriter.replaceAllUsesWith(member->result(), replacement);
    }
    // The old chains, now unread, and fills left without writers.
    for (const Concat *member : family) {
      for (tensor::InsertSliceOp insert : llvm::reverse(member->inserts))
        rewriter.eraseOp(insert);
      if (member->empty->use_empty())
        rewriter.eraseOp(member->empty);
    }
  }
};

} // namespace
